//! The harness's own declarations of the C library (`harness/src/sys.rs`)
//! checked against the `libc` crate's on the target the tests run on: the
//! same sizes, the same offsets of every field the harness reads, the same
//! constants.

use std::mem::{offset_of, size_of};

use crate::fuzz::pool::sys;

macro_rules! same_size {
    ($($name:ident),* $(,)?) => {
        $(assert_eq!(size_of::<sys::$name>(), size_of::<libc::$name>(), stringify!($name));)*
    };
}

macro_rules! same_offset {
    ($ty:ident: $($field:ident),* $(,)?) => {
        $(assert_eq!(
            offset_of!(sys::$ty, $field),
            offset_of!(libc::$ty, $field),
            concat!(stringify!($ty), ".", stringify!($field))
        );)*
    };
}

macro_rules! same_value {
    ($($name:ident),* $(,)?) => {
        $(assert_eq!(sys::$name as i128, libc::$name as i128, stringify!($name));)*
    };
}

#[test]
fn structures_match_libc() {
    same_size!(
        sigset_t,
        sigaction,
        stack_t,
        siginfo_t,
        pthread_attr_t,
        pthread_t,
        rlimit,
        pollfd,
        ssize_t,
        Elf64_Phdr,
        dl_phdr_info,
    );
    same_offset!(sigaction: sa_sigaction, sa_mask, sa_flags, sa_restorer);
    same_offset!(stack_t: ss_sp, ss_flags, ss_size);
    same_offset!(siginfo_t: si_signo, si_errno, si_code);
    same_offset!(rlimit: rlim_cur, rlim_max);
    same_offset!(pollfd: fd, events, revents);
    same_offset!(Elf64_Phdr: p_type, p_vaddr, p_memsz);
    same_offset!(dl_phdr_info: dlpi_addr, dlpi_phdr, dlpi_phnum, dlpi_tls_data);
}

#[test]
fn constants_match_libc() {
    same_value!(
        SIGILL,
        SIGABRT,
        SIGFPE,
        SYS_gettid,
        SYS_tgkill,
        SYS_brk,
        SYS_getrandom,
        SYS_ioctl,
        MS_ASYNC,
        MADV_DONTNEED,
        F_DUPFD,
        SIGBUS,
        SIGKILL,
        SIGSEGV,
        SIG_DFL,
        SIG_IGN,
        SA_SIGINFO,
        SA_ONSTACK,
        SA_RESTART,
        SS_DISABLE,
        EAGAIN,
        AT_MINSIGSTKSZ,
        PROT_NONE,
        PROT_READ,
        PROT_WRITE,
        MAP_SHARED,
        MAP_PRIVATE,
        MAP_ANONYMOUS,
        MAP_NORESERVE,
        MAP_STACK,
        F_SETFD,
        FD_CLOEXEC,
        POLLERR,
        POLLHUP,
        POLLNVAL,
        PR_SET_PDEATHSIG,
        PR_SET_NAME,
        _SC_PAGESIZE,
        RLIMIT_STACK,
        RLIM_INFINITY,
        P_PID,
        WEXITED,
        WNOWAIT,
        CLD_EXITED,
        CLD_KILLED,
        CLD_DUMPED,
        PT_LOAD,
    );
    assert_eq!(sys::MAP_FAILED, libc::MAP_FAILED);
    assert_eq!(sys::RTLD_NEXT, libc::RTLD_NEXT);
    assert_eq!(sys::RTLD_DEFAULT, libc::RTLD_DEFAULT);
}

/// The registers the fault handler reads, where libc's `ucontext_t` has them.
#[test]
fn the_context_registers_are_libcs() {
    // SAFETY: a zeroed ucontext_t is plain data.
    let mut context: libc::ucontext_t = unsafe { std::mem::zeroed() };
    #[cfg(target_arch = "x86_64")]
    {
        context.uc_mcontext.gregs[libc::REG_RIP as usize] = 0x1234;
        context.uc_mcontext.gregs[libc::REG_RSP as usize] = 0x5678;
    }
    #[cfg(target_arch = "aarch64")]
    {
        context.uc_mcontext.pc = 0x1234;
        context.uc_mcontext.sp = 0x5678;
    }
    let ptr = (&mut context as *mut libc::ucontext_t).cast();
    // SAFETY: a whole ucontext_t.
    let (pc, sp) = unsafe { (sys::context_pc(ptr), sys::context_sp(ptr)) };
    assert_eq!((pc, sp), (0x1234, 0x5678));
}

/// The accessors read the union members the kernel writes.
#[test]
fn siginfo_accessors_read_the_right_members() {
    // SAFETY: waits for a child of our own that exits with 7.
    let status = unsafe {
        let child = libc::fork();
        if child == 0 {
            libc::_exit(7);
        }
        let mut info = sys::siginfo_t::zeroed();
        assert_eq!(
            sys::waitid(sys::P_PID, child as u32, &mut info, sys::WEXITED),
            0
        );
        assert_eq!(info.si_code, sys::CLD_EXITED);
        info.si_status()
    };
    assert_eq!(status, 7);
}
