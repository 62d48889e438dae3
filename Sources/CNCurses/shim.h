#ifndef CARDFILE_CNCURSES_SHIM_H
#define CARDFILE_CNCURSES_SHIM_H

// The wide-character ncurses API needs these before any header.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <ncursesw/ncurses.h>
#include <ncursesw/term.h>

// Swift cannot import C macros with arguments or some globals: these wrappers expose them.

static inline WINDOW *cf_stdscr(void) { return stdscr; }
static inline WINDOW *cf_curscr(void) { return curscr; }
static inline int cf_lines(void) { return LINES; }
static inline int cf_cols(void) { return COLS; }
static inline int cf_colors(void) { return COLORS; }
static inline int cf_color_pairs(void) { return COLOR_PAIRS; }
static inline int cf_err(void) { return ERR; }
static inline FILE *cf_stdout(void) { return stdout; }
static inline FILE *cf_stdin(void) { return stdin; }

static inline attr_t cf_a_normal(void) { return A_NORMAL; }
static inline attr_t cf_a_bold(void) { return A_BOLD; }
static inline attr_t cf_a_dim(void) { return A_DIM; }
static inline attr_t cf_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cf_a_reverse(void) { return A_REVERSE; }
static inline attr_t cf_a_italic(void) { return A_ITALIC; }

static inline mmask_t cf_all_mouse_events(void) { return ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION; }

/// True when the terminal can move the cursor (terminfo `cup`): "dumb" cannot.
static inline int cf_has_cursor_addressing(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

/// The size the kernel reports for the terminal on `fd`, or 0 when it has none.
static inline int cf_window_size(int fd, int *rows, int *cols) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) return 0;
    *rows = size.ws_row;
    *cols = size.ws_col;
    return 1;
}

/// Waits until `fd1` or `fd2` is readable or `timeout_ms` passes (-1: forever). Returns a bit
/// mask: 1 for fd1, 2 for fd2; 0 on timeout; -1 when a signal interrupted the wait.
static inline int cf_wait_readable(int fd1, int fd2, int timeout_ms) {
    struct pollfd fds[2] = { { fd1, POLLIN, 0 }, { fd2, POLLIN, 0 } };
    int ready = poll(fds, 2, timeout_ms);
    if (ready < 0) return -1;
    if (ready == 0) return 0;
    return ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) ? 1 : 0) | ((fds[1].revents & POLLIN) ? 2 : 0);
}

/// Stops the process as Ctrl-Z would (the terminal's own suspend is off in raw mode). The
/// signal is unblocked first: a program started by a thread that blocks signals inherits that
/// mask, and a blocked stop signal would stay pending.
static inline void cf_stop_self(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTSTP);
    void (*previous)(int) = signal(SIGTSTP, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGTSTP);
    // Resumed: put back whatever handled SIGTSTP before (ncurses' own, for a `kill -TSTP`).
    signal(SIGTSTP, previous);
}

#endif
