/* suites/collectives/collectives.h - the collectives suite (see collectives.c). */
#ifndef SUITES_COLLECTIVES_H
#define SUITES_COLLECTIVES_H

#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const suite_def SUITE_COLLECTIVES;

#ifdef __cplusplus
}
#endif
#endif
