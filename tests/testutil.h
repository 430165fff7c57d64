/* tests/testutil.h - EXPECT for the C test programs: report and count failures;
 * TEST_END returns 1 when any failed. */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <stdio.h>

static int test_failures = 0;

#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            test_failures++;                                                \
            fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

#define TEST_END()                                                          \
    do {                                                                    \
        if (test_failures) fprintf(stderr, "%d check(s) failed\n", test_failures); \
        else printf("all checks passed\n");                                 \
        return test_failures ? 1 : 0;                                       \
    } while (0)

#endif
