// The support functions are static inline in the header; SwiftPM needs a source file.
#include "csqlite_support.h"
