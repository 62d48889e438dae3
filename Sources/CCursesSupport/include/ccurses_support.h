#ifndef CARDFILE_CCURSES_SUPPORT_H
#define CARDFILE_CCURSES_SUPPORT_H

/// Restores the terminal when the process crashes (a Swift runtime trap, a segmentation
/// fault), then hands the signal to the handler that was there before (Swift's backtracer
/// then prints its report on a usable terminal).
void cf_install_crash_handlers(void);

/// Restores the terminal if the process exits (exit() from anywhere) while curses is active.
/// Tells the crash and exit handlers whether a screen is up (1 after `newterm`, 0 after
/// `delscreen`): only then do they restore the terminal.
void cf_screen_up(int up);
void cf_install_exit_handler(void);

#endif
