// The crash and exit handlers need storage that lives in one C file (a header imported by
// Swift cannot define it), so they live here rather than in the CNCurses shim.
#define _XOPEN_SOURCE_EXTENDED 1
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <ncursesw/ncurses.h>
#include "ccurses_support.h"

/// The handlers in place before ours, by signal number.
static struct sigaction previous_actions[NSIG];

/// Turns off the modes the backend switches on itself (bracketed paste, SGR mouse reports),
/// with write(2), which is safe in a signal handler.
/// Whether a screen is up: after `delscreen`, `isendwin` says false, and the handlers would
/// write mode resets into whatever standard output is by then (git's, after `cardfile merge`).
static volatile sig_atomic_t screen_up = 0;

void cf_screen_up(int up) {
    screen_up = up;
}

static void reset_modes(void) {
    static const char reset[] = "\x1b[?2004l\x1b[?1006l\x1b[?1000l";
    ssize_t ignored = write(STDOUT_FILENO, reset, sizeof reset - 1);
    (void)ignored;
}

/// Best effort: endwin is not async-signal-safe, but a program that is crashing has nothing
/// better to do, and a broken terminal is worse.
static void restore_and_reraise(int signal_number) {
    if (screen_up && !isendwin()) {
        reset_modes();
        endwin();
    }
    sigaction(signal_number, &previous_actions[signal_number], NULL);
    raise(signal_number);
}

void cf_install_crash_handlers(void) {
    static const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE };
    struct sigaction action;
    action.sa_handler = restore_and_reraise;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    for (unsigned i = 0; i < sizeof crashes / sizeof crashes[0]; i++) {
        sigaction(crashes[i], &action, &previous_actions[crashes[i]]);
    }
}

static void restore_at_exit(void) {
    if (screen_up && !isendwin()) {
        reset_modes();
        endwin();
    }
}

void cf_install_exit_handler(void) {
    static int installed = 0;
    if (!installed) {
        installed = 1;
        atexit(restore_at_exit);
    }
}
