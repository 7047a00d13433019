//! The C library's functions, types and constants that the stand-in uses,
//! declared here under libc's names (`sys::sigaction` is `libc::sigaction`).
//!
//! The stand-in is compiled inside the user's fuzz project, against the
//! versions its `Cargo.lock` pins. A `libc` dependency would be whichever
//! 0.2.x that lock holds, and older ones lack items we need
//! (`pthread_attr_setstack` came in 0.2.182), so the build failed where
//! `cargo fuzz build` works. These declarations depend on nothing but the
//! C library itself: Linux with glibc or musl, on x86_64 or aarch64 (the
//! layouts below are those targets'; each size is checked at compile time).
//! cargo-reduce compiles this file too (`fuzz::pool`), where a test checks
//! every layout against the `libc` crate's.

#![allow(non_camel_case_types, non_upper_case_globals)]

#[cfg(not(target_os = "linux"))]
compile_error!(
    "cargo-reduce runs fuzz targets on Linux only (it uses prctl, memfd, /proc and \
     pthread_getattr_np); on other systems use `cargo fuzz tmin`"
);
#[cfg(all(
    target_os = "linux",
    not(all(
        any(target_arch = "x86_64", target_arch = "aarch64"),
        any(target_env = "gnu", target_env = "musl")
    ))
))]
compile_error!(
    "cargo-reduce's stand-in supports Linux on x86_64 and aarch64 with glibc or musl only \
     (the C library's layouts in harness/src/sys.rs); on other targets use `cargo fuzz tmin`"
);

pub(super) use std::os::raw::{c_char, c_int, c_long, c_short, c_uint, c_ulong, c_void};

pub(super) type size_t = usize;
pub(super) type ssize_t = isize;
pub(super) type pid_t = i32;
pub(super) type off_t = i64;
pub(super) type sighandler_t = size_t;
pub(super) type nfds_t = c_ulong;
pub(super) type rlim_t = u64;
pub(super) type idtype_t = c_uint;
pub(super) type id_t = c_uint;
#[cfg(target_env = "gnu")]
pub(super) type pthread_t = c_ulong;
#[cfg(target_env = "musl")]
pub type pthread_t = *mut c_void;

// <signal.h>; the same numbers on x86_64 and aarch64.
pub(super) const SIGILL: c_int = 4;
pub(super) const SIGABRT: c_int = 6;
pub(super) const SIGBUS: c_int = 7;
pub(super) const SIGFPE: c_int = 8;
pub(super) const SIGKILL: c_int = 9;
pub(super) const SIGSEGV: c_int = 11;
pub(super) const SIG_DFL: sighandler_t = 0;
pub(super) const SIG_IGN: sighandler_t = 1;
pub(super) const SA_SIGINFO: c_int = 4;
pub(super) const SS_DISABLE: c_int = 2;
pub(super) const SA_ONSTACK: c_int = 0x0800_0000;
pub(super) const SA_RESTART: c_int = 0x1000_0000;
pub(super) const SEGV_MAPERR: c_int = 1;
pub(super) const SEGV_ACCERR: c_int = 2;
/// `SIGSTKSZ`, the C library's constant (glibc 2.34 and later may make it
/// a call; this is the value it had before).
#[cfg(target_arch = "x86_64")]
pub(super) const SIGSTKSZ: size_t = 8192;
#[cfg(all(target_arch = "aarch64", target_env = "gnu"))]
pub const SIGSTKSZ: size_t = 16384;
#[cfg(all(target_arch = "aarch64", target_env = "musl"))]
pub const SIGSTKSZ: size_t = 12288;

// <errno.h>, <dlfcn.h>
pub(super) const EAGAIN: c_int = 11;
pub(super) const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;
pub(super) const RTLD_DEFAULT: *mut c_void = std::ptr::null_mut();

// <sys/auxv.h>
pub(super) const AT_MINSIGSTKSZ: c_ulong = 51;

// <sys/mman.h>
pub(super) const PROT_NONE: c_int = 0;
pub(super) const PROT_READ: c_int = 1;
pub(super) const PROT_WRITE: c_int = 2;
pub(super) const MAP_SHARED: c_int = 0x01;
pub(super) const MAP_PRIVATE: c_int = 0x02;
pub(super) const MAP_ANONYMOUS: c_int = 0x20;
pub(super) const MAP_NORESERVE: c_int = 0x4000;
pub(super) const MAP_STACK: c_int = 0x20000;
pub(super) const MAP_FAILED: *mut c_void = !0 as *mut c_void;
pub(super) const MS_ASYNC: c_int = 1;
pub(super) const MADV_DONTNEED: c_int = 4;

// <fcntl.h>, <poll.h>, <sys/prctl.h>, <unistd.h>, <sys/resource.h>, <sys/wait.h>
pub(super) const F_DUPFD: c_int = 0;
pub(super) const F_SETFD: c_int = 2;
pub(super) const FD_CLOEXEC: c_int = 1;
pub(super) const POLLERR: c_short = 0x8;
pub(super) const POLLHUP: c_short = 0x10;
pub(super) const POLLNVAL: c_short = 0x20;
pub(super) const PR_SET_PDEATHSIG: c_int = 1;
pub(super) const PR_SET_NAME: c_int = 15;
pub(super) const _SC_PAGESIZE: c_int = 30;
pub(super) const RLIMIT_STACK: c_int = 3;
pub(super) const RLIM_INFINITY: rlim_t = !0;
pub(super) const P_PID: idtype_t = 1;
pub(super) const WEXITED: c_int = 4;
pub(super) const WNOWAIT: c_int = 0x0100_0000;
pub(super) const CLD_EXITED: c_int = 1;
pub(super) const CLD_KILLED: c_int = 2;
pub(super) const CLD_DUMPED: c_int = 3;

// <sys/syscall.h>
#[cfg(target_arch = "x86_64")]
pub(super) const SYS_gettid: c_long = 186;
#[cfg(target_arch = "x86_64")]
pub(super) const SYS_tgkill: c_long = 234;
#[cfg(target_arch = "x86_64")]
pub(super) const SYS_brk: c_long = 12;
#[cfg(target_arch = "x86_64")]
pub(super) const SYS_getrandom: c_long = 318;
#[cfg(target_arch = "aarch64")]
pub const SYS_gettid: c_long = 178;
#[cfg(target_arch = "aarch64")]
pub const SYS_brk: c_long = 214;
#[cfg(target_arch = "aarch64")]
pub const SYS_getrandom: c_long = 278;
#[cfg(target_arch = "aarch64")]
pub const SYS_tgkill: c_long = 131;
#[cfg(target_arch = "x86_64")]
pub(super) const SYS_ioctl: c_long = 16;
#[cfg(target_arch = "aarch64")]
pub const SYS_ioctl: c_long = 29;

// <linux/fs.h>: `/proc/<pid>/pagemap`'s PAGEMAP_SCAN (Linux 6.7), which
// lists a range's pages by category, skipping what is not populated.
pub(super) const PAGEMAP_SCAN: c_ulong = 0xC060_6610;
pub(super) const PAGE_IS_PRESENT: u64 = 1 << 3;
pub(super) const PAGE_IS_SWAPPED: u64 = 1 << 4;

/// `struct page_region`: pages `[start, end)` of `categories`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(super) struct page_region {
    pub start: u64,
    pub end: u64,
    pub categories: u64,
}

/// `struct pm_scan_arg`.
#[repr(C)]
#[derive(Default)]
pub(super) struct pm_scan_arg {
    pub size: u64,
    pub flags: u64,
    pub start: u64,
    pub end: u64,
    pub walk_end: u64,
    pub vec: u64,
    pub vec_len: u64,
    pub max_pages: u64,
    pub category_inverted: u64,
    pub category_mask: u64,
    pub category_anyof_mask: u64,
    pub return_mask: u64,
}

/// `ioctl(pagemap, PAGEMAP_SCAN, scan)` on an open `/proc/<pid>/pagemap`:
/// the number of runs written to `scan.vec`, negative on an error (a
/// kernel before 6.7 has no such ioctl).
///
/// # Safety
/// `scan.vec` must point to `scan.vec_len` writable `page_region`s.
pub(super) unsafe fn pagemap_scan(pagemap: c_int, scan: &mut pm_scan_arg) -> c_long {
    // SAFETY: the caller's `vec` is what the kernel writes; the call goes
    // through syscall(2), each argument a full register, as the kernel
    // reads it.
    unsafe {
        syscall(
            SYS_ioctl,
            pagemap as c_long,
            PAGEMAP_SCAN,
            scan as *mut pm_scan_arg,
        )
    }
}

// <elf.h>
pub(super) const PT_LOAD: u32 = 1;

/// glibc's `__sigset_t` and musl's `sigset_t`: 1024 bits.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct sigset_t {
    __val: [c_ulong; 16],
}

/// The same on both C libraries and both architectures.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct sigaction {
    pub sa_sigaction: sighandler_t,
    pub sa_mask: sigset_t,
    pub sa_flags: c_int,
    pub sa_restorer: Option<extern "C" fn()>,
}

#[repr(C)]
pub(super) struct stack_t {
    pub ss_sp: *mut c_void,
    pub ss_flags: c_int,
    pub ss_size: size_t,
}

/// The kernel's 128-byte `siginfo_t`, with the union members we read.
#[repr(C)]
pub(super) struct siginfo_t {
    pub si_signo: c_int,
    pub si_errno: c_int,
    pub si_code: c_int,
    __pad: c_int,
    __fields: sigfields,
}

#[repr(C)]
#[derive(Clone, Copy)]
union sigfields {
    /// SIGSEGV, SIGBUS: the faulting address.
    addr: *mut c_void,
    /// SIGCHLD: `si_pid`, `si_uid`, `si_status`.
    child: [c_int; 3],
    __size: [u64; 14],
}

impl siginfo_t {
    /// A zeroed one, for `waitid` to fill in.
    pub(super) fn zeroed() -> Self {
        siginfo_t {
            si_signo: 0,
            si_errno: 0,
            si_code: 0,
            __pad: 0,
            __fields: sigfields { __size: [0; 14] },
        }
    }

    /// The faulting address of a SIGSEGV or SIGBUS.
    ///
    /// # Safety
    /// The signal must be one of those.
    pub(super) unsafe fn si_addr(&self) -> *mut c_void {
        // SAFETY: the caller says this member is the one the kernel wrote.
        unsafe { self.__fields.addr }
    }

    /// The exit code or signal of a child (`waitid`).
    ///
    /// # Safety
    /// The info must be a SIGCHLD's.
    pub(super) unsafe fn si_status(&self) -> c_int {
        // SAFETY: as above.
        unsafe { self.__fields.child[2] }
    }
}

/// glibc's is 56 bytes on x86_64 and 64 on aarch64; musl's 56 on both.
#[repr(C)]
pub(super) struct pthread_attr_t {
    #[cfg(all(target_env = "gnu", target_arch = "aarch64"))]
    __size: [u64; 8],
    #[cfg(not(all(target_env = "gnu", target_arch = "aarch64")))]
    __size: [u64; 7],
}

impl pthread_attr_t {
    /// Storage for `pthread_attr_init` or `pthread_getattr_np` to fill in.
    pub(super) fn zeroed() -> Self {
        pthread_attr_t {
            __size: Default::default(),
        }
    }
}

#[repr(C)]
pub(super) struct rlimit {
    pub rlim_cur: rlim_t,
    pub rlim_max: rlim_t,
}

#[repr(C)]
pub(super) struct pollfd {
    pub fd: c_int,
    pub events: c_short,
    pub revents: c_short,
}

#[repr(C)]
pub(super) struct Elf64_Phdr {
    pub p_type: u32,
    pub p_flags: u32,
    pub p_offset: u64,
    pub p_vaddr: u64,
    pub p_paddr: u64,
    pub p_filesz: u64,
    pub p_memsz: u64,
    pub p_align: u64,
}

#[repr(C)]
pub(super) struct dl_phdr_info {
    pub dlpi_addr: u64,
    pub dlpi_name: *const c_char,
    pub dlpi_phdr: *const Elf64_Phdr,
    pub dlpi_phnum: u16,
    pub dlpi_adds: u64,
    pub dlpi_subs: u64,
    pub dlpi_tls_modid: size_t,
    pub dlpi_tls_data: *mut c_void,
}

/// The start of `ucontext_t` up to the registers we read (the same on
/// glibc and musl): on x86_64 `uc_mcontext.gregs`.
#[cfg(target_arch = "x86_64")]
#[repr(C)]
struct UcontextHead {
    uc_flags: c_ulong,
    uc_link: *mut c_void,
    uc_stack: stack_t,
    gregs: [i64; 23],
}

/// The start of `ucontext_t` up to the registers we read: on aarch64 the
/// kernel's `sigcontext`, 16-byte aligned after the signal mask.
#[cfg(target_arch = "aarch64")]
#[repr(C)]
struct UcontextHead {
    uc_flags: c_ulong,
    uc_link: *mut c_void,
    uc_stack: stack_t,
    uc_sigmask: sigset_t,
    uc_mcontext: McontextHead,
}

#[cfg(target_arch = "aarch64")]
#[repr(C, align(16))]
struct McontextHead {
    fault_address: u64,
    regs: [u64; 31],
    sp: u64,
    pc: u64,
    pstate: u64,
}

#[cfg(target_arch = "x86_64")]
const REG_RSP: usize = 15;
#[cfg(target_arch = "x86_64")]
const REG_RIP: usize = 16;

/// The program counter of the interrupted code, from the context a
/// `SA_SIGINFO` handler gets as its third argument.
///
/// # Safety
/// `ucontext` must be that argument.
pub(super) unsafe fn context_pc(ucontext: *mut c_void) -> usize {
    let head = ucontext as *const UcontextHead;
    // SAFETY: the kernel's ucontext starts with `UcontextHead`.
    #[cfg(target_arch = "x86_64")]
    let pc = unsafe { (*head).gregs[REG_RIP] };
    #[cfg(target_arch = "aarch64")]
    let pc = unsafe { (*head).uc_mcontext.pc };
    pc as usize
}

/// The stack pointer of the interrupted code, from the context a
/// `SA_SIGINFO` handler gets as its third argument.
///
/// # Safety
/// `ucontext` must be that argument.
pub(super) unsafe fn context_sp(ucontext: *mut c_void) -> usize {
    let head = ucontext as *const UcontextHead;
    // SAFETY: the kernel's ucontext starts with `UcontextHead`.
    #[cfg(target_arch = "x86_64")]
    let sp = unsafe { (*head).gregs[REG_RSP] };
    #[cfg(target_arch = "aarch64")]
    let sp = unsafe { (*head).uc_mcontext.sp };
    sp as usize
}

/// Ties this process's life to `parent`'s (`PR_SET_PDEATHSIG`), or ends it
/// (exit status 3) if `parent` is already gone. An orphan is re-parented
/// to init or to the nearest subreaper (systemd --user, a container's
/// init), so the test is whether the parent is still `parent`, not
/// whether it is pid 1. Only system calls: safe in a forked child.
pub(super) fn die_with_parent(parent: pid_t) {
    // SAFETY: plain prctl, getppid and _exit calls.
    unsafe {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if getppid() != parent {
            _exit(3);
        }
    }
}

/// The type `pthread_create` runs.
pub(super) type start_routine = extern "C" fn(*mut c_void) -> *mut c_void;
/// The type `dl_iterate_phdr` calls back.
pub(super) type phdr_callback =
    unsafe extern "C" fn(*mut dl_phdr_info, size_t, *mut c_void) -> c_int;

extern "C" {
    pub(super) fn _exit(status: c_int) -> !;
    pub(super) fn abort() -> !;
    pub(super) fn fork() -> pid_t;
    pub(super) fn getpid() -> pid_t;
    pub(super) fn kill(pid: pid_t, signal: c_int) -> c_int;
    pub(super) fn getppid() -> pid_t;
    pub(super) fn waitpid(pid: pid_t, status: *mut c_int, options: c_int) -> pid_t;
    pub(super) fn waitid(idtype: idtype_t, id: id_t, info: *mut siginfo_t, options: c_int)
        -> c_int;
    pub(super) fn prctl(option: c_int, ...) -> c_int;
    pub(super) fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    pub(super) fn poll(fds: *mut pollfd, nfds: nfds_t, timeout: c_int) -> c_int;
    pub(super) fn sysconf(name: c_int) -> c_long;
    pub(super) fn getauxval(kind: c_ulong) -> c_ulong;
    pub(super) fn syscall(number: c_long, ...) -> c_long;
    pub(super) fn __errno_location() -> *mut c_int;
    pub(super) fn getrlimit(resource: c_int, limit: *mut rlimit) -> c_int;

    pub(super) fn mmap(
        addr: *mut c_void,
        len: size_t,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        offset: off_t,
    ) -> *mut c_void;
    pub(super) fn munmap(addr: *mut c_void, len: size_t) -> c_int;
    pub(super) fn mprotect(addr: *mut c_void, len: size_t, prot: c_int) -> c_int;
    pub(super) fn msync(addr: *mut c_void, len: size_t, flags: c_int) -> c_int;
    pub(super) fn madvise(addr: *mut c_void, len: size_t, advice: c_int) -> c_int;
    pub(super) fn close(fd: c_int) -> c_int;

    pub(super) fn raise(signal: c_int) -> c_int;
    pub(super) fn signal(signal: c_int, handler: sighandler_t) -> sighandler_t;
    pub(super) fn sigaction(signal: c_int, action: *const sigaction, old: *mut sigaction) -> c_int;
    pub(super) fn sigemptyset(set: *mut sigset_t) -> c_int;
    pub(super) fn sigaltstack(stack: *const stack_t, old: *mut stack_t) -> c_int;

    pub(super) fn pthread_self() -> pthread_t;
    pub(super) fn pthread_create(
        thread: *mut pthread_t,
        attr: *const pthread_attr_t,
        start: start_routine,
        arg: *mut c_void,
    ) -> c_int;
    pub(super) fn pthread_detach(thread: pthread_t) -> c_int;
    pub(super) fn pthread_getattr_np(thread: pthread_t, attr: *mut pthread_attr_t) -> c_int;
    pub(super) fn pthread_attr_init(attr: *mut pthread_attr_t) -> c_int;
    pub(super) fn pthread_attr_destroy(attr: *mut pthread_attr_t) -> c_int;
    pub(super) fn pthread_attr_getstack(
        attr: *const pthread_attr_t,
        stack: *mut *mut c_void,
        size: *mut size_t,
    ) -> c_int;
    pub(super) fn pthread_attr_setstack(
        attr: *mut pthread_attr_t,
        stack: *mut c_void,
        size: size_t,
    ) -> c_int;

    pub(super) fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    pub(super) fn dl_iterate_phdr(callback: Option<phdr_callback>, data: *mut c_void) -> c_int;
}

// The sizes of the C library's structures on these targets.
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<sigset_t>() == 128);
    assert!(size_of::<sigaction>() == 152);
    assert!(size_of::<stack_t>() == 24);
    assert!(size_of::<siginfo_t>() == 128);
    assert!(size_of::<rlimit>() == 16);
    assert!(size_of::<pollfd>() == 8);
    assert!(size_of::<Elf64_Phdr>() == 56);
    assert!(size_of::<dl_phdr_info>() == 64);
    assert!(size_of::<page_region>() == 24);
    assert!(size_of::<pm_scan_arg>() == 96);
    #[cfg(all(target_env = "gnu", target_arch = "aarch64"))]
    assert!(size_of::<pthread_attr_t>() == 64);
    #[cfg(not(all(target_env = "gnu", target_arch = "aarch64")))]
    assert!(size_of::<pthread_attr_t>() == 56);
    // x86_64: gregs at 40, REG_RIP at 168; aarch64: sigcontext at 176,
    // pc at 440.
    #[cfg(target_arch = "x86_64")]
    assert!(size_of::<UcontextHead>() == 40 + 23 * 8);
    #[cfg(target_arch = "aarch64")]
    assert!(size_of::<UcontextHead>() == 176 + 288);
};
