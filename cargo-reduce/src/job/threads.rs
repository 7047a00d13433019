//! One job spread over a few threads: each item mapped in a contiguous
//! share of its own thread's, the results in the items' order (reading a
//! corpus's files, compiling crash tests).

/// `f` of every item of `items`, in order, on up to `threads` threads.
pub(crate) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker thread does not panic"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_whatever_the_threads() {
        let items: Vec<u32> = (0..10).collect();
        for threads in [0, 1, 3, 16] {
            assert_eq!(
                map_in_order(&items, threads, |x| x * 2),
                (0..10).map(|x| x * 2).collect::<Vec<_>>()
            );
        }
        assert!(map_in_order(&[] as &[u32], 2, |x| *x).is_empty());
    }
}
