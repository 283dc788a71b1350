/*
 * attach/remote_call.c — a function call on a borrowed thread. See
 * remote_call.h.
 *
 * How a call is made. The thread, stopped by PTRACE_INTERRUPT inside a
 * system call, has its state saved: general registers, the whole xsave
 * area (x87, SSE, AVX, PKRU) and its signal mask. A call writes, below
 * the thread's red zone, a signal frame as the kernel's rt_sigreturn reads
 * it — the return address, then a ucontext holding the saved state with
 * the system call's result made final (a call the kernel would restart is
 * set to run again) — and sets the registers: the instruction pointer at
 * the function, the arguments in rdi/rsi/rdx, the stack pointer at the
 * frame, orig_rax -1 (no restart of anything). The function's `ret` pops
 * the address of libc's __restore_rt (`mov $15,%rax; syscall`), whose
 * rt_sigreturn puts every register, the FPU state and the signal mask back
 * in one step: the thread then returns from its system call as after any
 * signal handler — epoll_wait with EINTR, which Ruby's timer thread
 * retries (thread_pthread_mn.c).
 *
 * Nothing of that needs us: we only watch it (PTRACE_SYSCALL: a stop at
 * each system call of the function, the last one its rt_sigreturn), so
 * that we know when to make the next call. If we die at any instant the
 * kernel detaches the thread and it finishes by itself; a signal stop we
 * held dies with us into an ordinary delivery. Signals that arrive during
 * a call are delivered at once; a fault of the function's own is the one
 * thing we act on: the saved state is put back by hand, the fault dropped.
 */
#include "remote_call.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __x86_64__
#error "rperf-attach calls functions in another process the x86-64 way only"
#endif

/* Below the stack pointer: the red zone (128 bytes, the ABI's), then what
 * we push and the signal frame (up to XSTATE_MAX of it FPU state), then
 * the callee's frames. */
#define RED_ZONE 128
#define PUSH_ROOM 65536
#define XSTATE_MAX 32768

/* The kernel's codes for a system call it restarts (never seen by user
 * space), and the xsave layout of a signal frame (asm/sigcontext.h). */
enum {
    ERESTARTSYS_ = 512,
    ERESTARTNOINTR_ = 513,
    ERESTARTNOHAND_ = 514,
    ERESTART_RESTARTBLOCK_ = 516,
};
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSTATE_MAGIC2 0x46505845U
#define SW_BYTES_OFFSET 464 /* fxsave's software-reserved bytes */
#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
/* An altstack mode rt_sigreturn refuses (EINVAL, which it ignores): the
 * thread's own alternate signal stack, which we cannot read, stays. */
#define SS_MODE_KEEP 3

const unsigned char rp_restorer_code[9] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

void (*rp_borrow_step_hook)(const char *step, int n);

struct rp_borrowed {
    pid_t pid, tid;
    int mem_fd;
    uint64_t restorer;
    struct user_regs_struct saved;
    uint64_t sigmask;
    unsigned char *xstate; /* saved FPU state, xsave layout (or fxsave) */
    size_t xstate_len;
    bool full_xstate; /* xstate is the kernel's xsave layout with its magic */
    uint64_t pushed;  /* lowest address used by pushes so far */
    bool released;    /* let go already: nothing more may be done */
    int64_t stopped_at_ns;
};

static void step(const char *name, int n)
{
    if (rp_borrow_step_hook)
        rp_borrow_step_hook(name, n);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for the thread's next stop, at most `timeout_ms`: its wait
 * status, or -1 (timeout: errno ETIMEDOUT; gone: ECHILD/ESRCH). */
static int wait_stop(pid_t tid, int timeout_ms)
{
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
    for (long pause_ns = 1000;; pause_ns = pause_ns < 200000 ? pause_ns * 2 : pause_ns) {
        int status;
        pid_t got = waitpid(tid, &status, __WALL | WNOHANG);
        if (got == tid) {
            if (WIFEXITED(status) || WIFSIGNALED(status)) {
                errno = ESRCH;
                return -1;
            }
            return status;
        }
        if (got < 0)
            return -1;
        if (now_ns() > deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct timespec pause = {0, pause_ns};
        nanosleep(&pause, NULL);
    }
}

static bool fail(char *why, size_t size, const char *what)
{
    int err = errno;
    snprintf(why, size, "%s: %s", what, err == ESRCH || err == ECHILD ? "the process went away" : strerror(err));
    errno = err;
    return false;
}

static bool is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The thread's FPU state: the whole xsave area when the kernel gives it
 * (then a signal return restores AVX and PKRU too), else fxsave's. */
static bool save_fpu(rp_borrowed *b)
{
    b->xstate = aligned_alloc(64, XSTATE_MAX);
    if (!b->xstate)
        return false;
    struct iovec iov = {b->xstate, XSTATE_MAX - 64};
    if (ptrace(PTRACE_GETREGSET, b->tid, (void *)NT_X86_XSTATE, &iov) == 0 && iov.iov_len > SW_BYTES_OFFSET + 16) {
        uint32_t magic1, size;
        memcpy(&magic1, b->xstate + SW_BYTES_OFFSET, 4);
        memcpy(&size, b->xstate + SW_BYTES_OFFSET + 16, 4); /* xstate_size */
        b->full_xstate = magic1 == FP_XSTATE_MAGIC1 && size == iov.iov_len;
        b->xstate_len = iov.iov_len;
        if (b->full_xstate)
            return true;
    }
    if (ptrace(PTRACE_GETFPREGS, b->tid, NULL, b->xstate) != 0)
        return false;
    b->xstate_len = sizeof(struct user_fpregs_struct);
    memset(b->xstate + SW_BYTES_OFFSET, 0, b->xstate_len - SW_BYTES_OFFSET); /* fxsave only */
    return true;
}

/* Lets the thread go, whatever it is doing: stopped, it is detached (a
 * signal it stopped for is delivered); running, it is stopped first. */
static void release(rp_borrowed *b, int status)
{
    if (b->released)
        return;
    b->released = true;
    if (status < 0) {
        if (ptrace(PTRACE_INTERRUPT, b->tid, NULL, NULL) != 0)
            return;
        status = wait_stop(b->tid, 200);
        if (status < 0)
            return; /* our exit detaches it */
    }
    int sig = 0;
    if (WIFSTOPPED(status) && (status >> 16) == 0 && WSTOPSIG(status) != (SIGTRAP | 0x80))
        sig = WSTOPSIG(status); /* a signal-delivery stop: it keeps its signal */
    ptrace(PTRACE_DETACH, b->tid, NULL, (void *)(long)sig);
    step("released", 0);
}

rp_borrowed *rp_borrow(pid_t pid, pid_t tid, uint64_t restorer, bool (*syscall_ok)(long nr), char *why,
                       size_t size)
{
    if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD) != 0) {
        fail(why, size, "cannot trace it");
        return NULL;
    }
    rp_borrowed *b = calloc(1, sizeof(*b));
    if (!b) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        snprintf(why, size, "out of memory");
        return NULL;
    }
    b->pid = pid;
    b->tid = tid;
    b->mem_fd = -1;
    b->restorer = restorer;
    int status = -1;
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) == 0)
        status = wait_stop(tid, 1000);
    b->stopped_at_ns = now_ns();
    step("stopped", 0);
    bool event_stop = status >= 0 && WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP;
    const char *refusal = NULL;
    int err = 0;
    if (status < 0) {
        err = errno;
        fail(why, size, "cannot stop the thread");
    } else if (!event_stop) {
        refusal = "a signal arrived while stopping the thread"; /* released with it */
        err = EINTR;
    } else if (is_stop_signal(WSTOPSIG(status))) {
        refusal = "it is stopped (by a signal such as SIGSTOP)";
        err = EAGAIN;
    } else if (ptrace(PTRACE_GETREGS, tid, NULL, &b->saved) != 0 ||
               ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(b->sigmask), &b->sigmask) != 0 || !save_fpu(b)) {
        err = errno;
        fail(why, size, "cannot read the thread's state");
    } else if ((long)b->saved.orig_rax < 0 || !syscall_ok((long)b->saved.orig_rax)) {
        refusal = "the thread was not waiting in its system call";
        err = EINTR;
    } else {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
        b->mem_fd = open(path, O_RDWR | O_CLOEXEC);
        if (b->mem_fd >= 0) {
            b->pushed = b->saved.rsp - RED_ZONE;
            return b;
        }
        err = errno;
        fail(why, size, "cannot open its memory");
    }
    if (refusal)
        snprintf(why, size, "%s", refusal);
    release(b, status);
    free(b->xstate);
    free(b);
    errno = err;
    return NULL;
}

uint64_t rp_borrowed_push(rp_borrowed *b, const void *data, size_t n)
{
    uint64_t at = (b->pushed - n) & ~(uint64_t)15;
    if (b->saved.rsp - RED_ZONE - at > PUSH_ROOM / 2)
        return 0;
    if (pwrite(b->mem_fd, data, n, (off_t)at) != (ssize_t)n)
        return 0;
    b->pushed = at;
    return at;
}

bool rp_borrowed_read(rp_borrowed *b, uint64_t addr, void *out, size_t n)
{
    return pread(b->mem_fd, out, n, (off_t)addr) == (ssize_t)n;
}

/* The registers the thread is to have when it goes on: the saved ones,
 * with the system call's outcome made final — one the kernel would
 * restart is set to run again (as it does after a signal handler with
 * SA_RESTART), one it would end with EINTR ends so. */
static struct user_regs_struct resume_regs(const struct user_regs_struct *saved)
{
    struct user_regs_struct r = *saved;
    long err = -(long)saved->rax;
    if ((long)saved->orig_rax >= 0) {
        if (err == ERESTARTSYS_ || err == ERESTARTNOINTR_ || err == ERESTARTNOHAND_) {
            r.rip -= 2; /* the syscall instruction */
            r.rax = saved->orig_rax;
        } else if (err == ERESTART_RESTARTBLOCK_) {
            r.rax = (unsigned long long)-EINTR;
        }
    }
    r.orig_rax = (unsigned long long)-1;
    return r;
}

/* Writes the signal frame of a call below the pushes: its address (what
 * the function's stack pointer starts at), or 0 when it does not fit. */
static uint64_t write_frame(rp_borrowed *b)
{
    size_t fpu_room = b->xstate_len + sizeof(uint32_t);
    uint64_t fpu_at = (b->pushed - fpu_room) & ~(uint64_t)63;
    /* At a function's first instruction rsp + 8 is 16-byte aligned. */
    uint64_t frame = ((fpu_at - sizeof(ucontext_t) - 16) & ~(uint64_t)15) + 8;
    if (b->saved.rsp - RED_ZONE - frame > PUSH_ROOM)
        return 0;
    size_t len = (size_t)(fpu_at + fpu_room - frame);
    unsigned char *bytes = calloc(1, len);
    if (!bytes)
        return 0;
    struct user_regs_struct r = resume_regs(&b->saved);
    ucontext_t *uc = (ucontext_t *)(bytes + 8);
    memcpy(bytes, &b->restorer, 8);
    uc->uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS | (b->full_xstate ? UC_FP_XSTATE : 0);
    uc->uc_stack.ss_flags = SS_MODE_KEEP;
    greg_t *g = uc->uc_mcontext.gregs;
    g[REG_R8] = (greg_t)r.r8, g[REG_R9] = (greg_t)r.r9, g[REG_R10] = (greg_t)r.r10, g[REG_R11] = (greg_t)r.r11;
    g[REG_R12] = (greg_t)r.r12, g[REG_R13] = (greg_t)r.r13, g[REG_R14] = (greg_t)r.r14;
    g[REG_R15] = (greg_t)r.r15, g[REG_RDI] = (greg_t)r.rdi, g[REG_RSI] = (greg_t)r.rsi;
    g[REG_RBP] = (greg_t)r.rbp, g[REG_RBX] = (greg_t)r.rbx, g[REG_RDX] = (greg_t)r.rdx;
    g[REG_RAX] = (greg_t)r.rax, g[REG_RCX] = (greg_t)r.rcx, g[REG_RSP] = (greg_t)r.rsp;
    g[REG_RIP] = (greg_t)r.rip, g[REG_EFL] = (greg_t)r.eflags;
    g[REG_CSGSFS] = (greg_t)((r.cs & 0xffff) | (r.gs & 0xffff) << 16 | (r.fs & 0xffff) << 32 | (r.ss & 0xffff) << 48);
    uc->uc_mcontext.fpregs = (fpregset_t)(uintptr_t)fpu_at;
    memcpy(&uc->uc_sigmask, &b->sigmask, sizeof(b->sigmask));
    unsigned char *fpu = bytes + (fpu_at - frame);
    memcpy(fpu, b->xstate, b->xstate_len);
    uint32_t magic2 = FP_XSTATE_MAGIC2;
    memcpy(fpu + b->xstate_len, &magic2, sizeof(magic2));
    bool written = pwrite(b->mem_fd, bytes, len, (off_t)frame) == (ssize_t)len;
    free(bytes);
    return written ? frame : 0;
}

/* Puts the saved state back by hand (the call faulted: its frame is not
 * to be trusted) and lets the thread go, the fault dropped. */
static void restore_by_hand(rp_borrowed *b)
{
    struct user_regs_struct r = resume_regs(&b->saved);
    struct iovec iov = {b->xstate, b->xstate_len};
    ptrace(PTRACE_SETREGS, b->tid, NULL, &r);
    if (b->full_xstate)
        ptrace(PTRACE_SETREGSET, b->tid, (void *)NT_X86_XSTATE, &iov);
    else
        ptrace(PTRACE_SETFPREGS, b->tid, NULL, b->xstate);
    ptrace(PTRACE_SETSIGMASK, b->tid, (void *)sizeof(b->sigmask), &b->sigmask);
    b->released = true;
    ptrace(PTRACE_DETACH, b->tid, NULL, NULL);
}

static bool is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
}

rp_call_outcome rp_borrowed_call(rp_borrowed *b, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2,
                                 int timeout_ms, char *why, size_t size)
{
    if (b->released) {
        snprintf(why, size, "the thread was let go already");
        return RP_CALL_NOT_MADE;
    }
    uint64_t frame = write_frame(b);
    if (!frame) {
        snprintf(why, size, "its stack has no room for the call");
        return RP_CALL_NOT_MADE;
    }
    struct user_regs_struct regs = b->saved;
    regs.rsp = frame;
    regs.rip = fn;
    regs.rdi = a0;
    regs.rsi = a1;
    regs.rdx = a2;
    regs.rax = 0;
    regs.orig_rax = (unsigned long long)-1;
    regs.eflags &= ~0x500ULL; /* TF and DF clear, as at any call */
    if (ptrace(PTRACE_SETREGS, b->tid, NULL, &regs) != 0) {
        fail(why, size, "cannot start the call");
        return errno == ESRCH ? RP_CALL_GONE : RP_CALL_NOT_MADE;
    }
    step("call-ready", 0);
    int64_t deadline = now_ns() + (int64_t)timeout_ms * 1000000;
    int syscalls = 0, deliver = 0;
    bool returning = false, listening = false;
    for (;;) {
        if (!listening && ptrace(PTRACE_SYSCALL, b->tid, NULL, (void *)(long)deliver) != 0) {
            fail(why, size, "the call");
            b->released = true;
            return RP_CALL_GONE;
        }
        deliver = 0;
        int64_t left_ms = (deadline - now_ns()) / 1000000;
        int status = wait_stop(b->tid, left_ms > 0 ? (int)left_ms : 0);
        if (status < 0) {
            if (errno != ETIMEDOUT) {
                fail(why, size, "the call");
                b->released = true;
                return RP_CALL_GONE;
            }
            snprintf(why, size, "the call did not return within %d ms%s; it returns by itself when it ends",
                     timeout_ms, listening ? " (the process is stopped)" : "");
            release(b, listening ? 0 : -1);
            return RP_CALL_LEFT;
        }
        listening = false;
        int sig = WSTOPSIG(status);
        if (sig == (SIGTRAP | 0x80)) {
            struct user_regs_struct r;
            if (ptrace(PTRACE_GETREGS, b->tid, NULL, &r) != 0)
                continue;
            if (returning) {
                step("returned", 0);
                return RP_CALL_RETURNED;
            }
            /* A signal handler's own return, if one ran on the call, is
             * at another stack pointer. */
            if (r.orig_rax == SYS_rt_sigreturn && r.rip == b->restorer + sizeof(rp_restorer_code) &&
                r.rsp == frame + 8) {
                returning = true;
                step("returning", 0);
            } else {
                step("in-call", ++syscalls);
            }
            continue;
        }
        if ((status >> 16) == PTRACE_EVENT_STOP) {
            /* The process is stopped (SIGSTOP): so stays this thread, in
             * its call, until SIGCONT. */
            if (is_stop_signal(sig))
                listening = ptrace(PTRACE_LISTEN, b->tid, NULL, NULL) == 0;
            continue;
        }
        siginfo_t si;
        if (is_fault(sig) && ptrace(PTRACE_GETSIGINFO, b->tid, NULL, &si) == 0 && si.si_code > 0) {
            snprintf(why, size, "the call crashed (signal %d at %#llx); the thread was put back as it was", sig,
                     (unsigned long long)(ptrace(PTRACE_GETREGS, b->tid, NULL, &regs) == 0 ? regs.rip : 0));
            restore_by_hand(b);
            return RP_CALL_CRASHED;
        }
        deliver = sig; /* the program's signal: its handler runs now */
    }
}

uint64_t rp_borrowed_sp(const rp_borrowed *b)
{
    return b->saved.rsp;
}

int64_t rp_borrowed_stopped_ns(const rp_borrowed *b)
{
    return now_ns() - b->stopped_at_ns;
}

bool rp_give_back(rp_borrowed *b, char *why, size_t size)
{
    bool ok = true;
    if (!b->released) {
        b->released = true;
        /* After a call it is at its signal return's exit, back as it was;
         * after none, at its first stop, untouched. */
        if (ptrace(PTRACE_DETACH, b->tid, NULL, NULL) != 0)
            ok = fail(why, size, "cannot detach");
        else
            step("released", 0);
    }
    if (b->mem_fd >= 0)
        close(b->mem_fd);
    free(b->xstate);
    free(b);
    return ok;
}
