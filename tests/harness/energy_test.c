/* tests/harness/energy_test.c - package energy from a fake powercap tree:
 * the top-level zones found (sub-zones and other control types not), their
 * names, the joules between two readings with a counter's wrap, a counter
 * that did not move (no measurement, not 0), and the reasons when there is
 * no zone: no folder, no package zone, an unreadable counter. */
#define _POSIX_C_SOURCE 200809L
#include "energy.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void put(const char *root, const char *zone, const char *file, const char *text)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, zone);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/%s", root, zone, file);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    char root[] = "/tmp/energy_test_XXXXXX";
    if (!mkdtemp(root)) return 1;
    energy_src e;
    char line[400];

    /* nothing there */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/none", root);
    EXPECT(energy_open(&e, nowhere) == -1 && e.nzones == 0 && strstr(e.why, "no RAPL zones here"),
           "no folder: '%s'", e.why);
    energy_describe(&e, line, sizeof line);
    EXPECT(strncmp(line, "none: no ", 9) == 0, "described: '%s'", line);
    /* a folder without a package zone: only a sub-zone and another control type */
    put(root, "intel-rapl:0:0", "energy_uj", "5\n");
    put(root, "intel-rapl:0:0", "max_energy_range_uj", "100\n");
    put(root, "dtpm", "energy_uj", "5\n");
    EXPECT(energy_open(&e, root) == -1 && strstr(e.why, "no RAPL package zone"), "'%s'", e.why);
    /* a package zone whose counter cannot be read (here: missing) */
    put(root, "intel-rapl:1", "max_energy_range_uj", "262143328850\n");
    EXPECT(energy_open(&e, root) == -1 && strstr(e.why, "intel-rapl:1/energy_uj unreadable"), "'%s'", e.why);

    /* two packages; the sub-zone is not added again */
    put(root, "intel-rapl:1", "energy_uj", "1000000\n");
    put(root, "intel-rapl:1", "name", "package-1\n");
    put(root, "intel-rapl:0", "energy_uj", "262143000000\n");
    put(root, "intel-rapl:0", "max_energy_range_uj", "262143328850\n");
    put(root, "intel-rapl:0", "name", "package-0\n");
    EXPECT(energy_open(&e, root) == 0 && e.nzones == 2, "zones %d (%s)", e.nzones, e.why);
    EXPECT(!strcmp(e.name[0], "package-0") && !strcmp(e.name[1], "package-1"), "names %s %s", e.name[0],
           e.name[1]);
    energy_describe(&e, line, sizeof line);
    EXPECT(strstr(line, "powercap RAPL, the packages (package-0, package-1)"), "described: '%s'", line);
    double a[ENERGY_MAX_ZONES], b[ENERGY_MAX_ZONES];
    EXPECT(energy_read(&e, a) == 0 && a[0] == 262143000000.0 && a[1] == 1e6, "read %g %g", a[0], a[1]);
    EXPECT(isnan(energy_between_j(&e, a, a)), "a counter that did not move is no measurement");
    /* package 0 wraps: 328850 uj to its range, then 671150 more; package 1 +2.5 J */
    put(root, "intel-rapl:0", "energy_uj", "671150\n");
    put(root, "intel-rapl:1", "energy_uj", "3500000\n");
    EXPECT(energy_read(&e, b) == 0, "second read");
    double j = energy_between_j(&e, a, b);
    EXPECT(fabs(j - (1.0 + 2.5)) < 1e-9, "joules %.9f, want 3.5", j);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", root);
    TEST_END();
}
