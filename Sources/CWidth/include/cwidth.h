#ifndef CARDFILE_CWIDTH_H
#define CARDFILE_CWIDTH_H

#include <stddef.h>

/// The number of terminal columns the C library's Unicode tables give one code point
/// (`wcwidth`): -1 for control characters. Needs a UTF-8 LC_CTYPE locale.
int cf_wcwidth(unsigned int codepoint);

#endif
