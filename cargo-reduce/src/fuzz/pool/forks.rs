//! A test process and its forks: in the coverage build each test runs in
//! a fork of the test process (the harness's `worker::test_in_fork`), and
//! the memory and CPU time the pool watches are the two processes'.

/// `pid` and its children (each thread's; none where the kernel does
/// not list them).
pub(super) fn with_children(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return all;
    };
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        all.extend(
            children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_lists_its_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("10")
            .spawn()
            .expect("sleep");
        let me = std::process::id();
        let listed = with_children(me);
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(listed[0], me);
        assert!(listed.contains(&child.id()), "{listed:?}");
    }
}
