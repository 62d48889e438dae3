// wcwidth is an X/Open extension: declare the feature before any system header.
#define _XOPEN_SOURCE 700
#include <wchar.h>
#include "cwidth.h"

int cf_wcwidth(unsigned int codepoint) {
    return wcwidth((wchar_t)codepoint);
}
