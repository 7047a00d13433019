//! Cutting a configuration into chunks.
//!
//! The split is balanced: `n` chunks whose sizes differ by at most one, the
//! larger ones first (picire's "balanced" splitter). Zeller's formulation
//! only asks for `|Δi| ≈ |c|/n`; balanced chunks keep every test at the same
//! granularity, which makes test counts predictable.

use std::ops::Range;

/// `len` atoms cut into `n` contiguous, non-empty chunks (`1 ≤ n ≤ len`).
pub(crate) fn balanced(len: usize, n: usize) -> Vec<Range<usize>> {
    assert!(
        n >= 1 && n <= len.max(1),
        "cannot cut {len} atoms into {n} chunks"
    );
    let (size, extra) = (len / n, len % n);
    let mut start = 0;
    (0..n)
        .map(|i| {
            let end = start + size + usize::from(i < extra);
            let chunk = start..end;
            start = end;
            chunk
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_partition_the_range_evenly() {
        for len in 1..40 {
            for n in 1..=len {
                let chunks = balanced(len, n);
                assert_eq!(chunks.len(), n);
                assert_eq!(chunks[0].start, 0);
                assert_eq!(chunks[n - 1].end, len);
                for w in chunks.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                let sizes: Vec<_> = chunks.iter().map(|c| c.len()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
                assert!(sizes.iter().all(|&s| s > 0));
            }
        }
    }
}
