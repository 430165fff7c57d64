/* suites/registry.h - BACKENDS[] and SUITES[] (see registry.c). */
#ifndef SUITES_REGISTRY_H
#define SUITES_REGISTRY_H

#include "backend.h"
#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const backend_def BACKENDS[];   /* terminated by name NULL */
extern const suite_entry SUITES[];     /* terminated by def NULL */

const suite_entry *suite_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
