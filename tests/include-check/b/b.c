/* b: includes a's public header, which its line allows. */
#include "b.h"
#include "a/a.h"
