/* a: includes what its line does not allow, to be caught. */
#include "a.h"
#include "b/b.h"
#include "b/b-private.h"
