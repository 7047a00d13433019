//! The process groups cargo-reduce has started and not yet ended (test
//! commands, cargo builds), so that leaving at once (a second Ctrl-C) can
//! end them first: nothing a run started outlives it.

use std::sync::Mutex;

use rustix::process::{kill_process_group, Pid, Signal};

static GROUPS: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// A registered process group, unregistered on drop. The owner still kills
/// and reaps its group itself; the registry only serves [`kill_all`].
#[derive(Debug)]
pub struct Registered(Pid);

/// Registers the group `pgid` (a child started with `process_group(0)`).
pub fn register(pgid: u32) -> Option<Registered> {
    let pid = Pid::from_raw(i32::try_from(pgid).ok()?)?;
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pid);
    Some(Registered(pid))
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = groups.iter().position(|p| *p == self.0) {
            groups.swap_remove(i);
        }
    }
}

/// Kills every registered group (SIGKILL); for a process about to exit.
pub fn kill_all() {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for pid in groups.iter() {
        let _ = kill_process_group(*pid, Signal::KILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::Command;

    #[test]
    fn kill_all_ends_registered_groups() {
        let mut child = Command::new("sleep")
            .arg("1000")
            .process_group(0)
            .spawn()
            .unwrap();
        let registered = register(child.id()).unwrap();
        kill_all();
        let status = child.wait().unwrap();
        assert!(!status.success());
        drop(registered);
        assert!(GROUPS
            .lock()
            .unwrap()
            .iter()
            .all(|p| p.as_raw_nonzero().get() != child.id() as i32));
    }
}
