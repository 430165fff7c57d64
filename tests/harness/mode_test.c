/* tests/harness/mode_test.c - the test of harness/mode.c: the one view of
 * every mode over the mode tables (host, GPU_MODES, DP_MODES): kinds, the
 * headline modes, chart ranks and the palette the charts are drawn with;
 * and a GPU mode under another allocator (`resident+per-step`, gpu_alloc.h). */
#include "dp_mode.h"
#include "gpu_alloc.h"
#include "gpu_mode.h"
#include "mode.h"
#include "testutil.h"

#include <string.h>

static int is_colour(const char *c)
{
    if (!c || strlen(c) != 7 || c[0] != '#') return 0;
    for (int i = 1; i < 7; i++)
        if (!strchr("0123456789ABCDEFabcdef", c[i])) return 0;
    return 1;
}

int main(void)
{
    EXPECT(mode_kind_of(MODE_HOST) == MODE_KIND_HOST, "host's kind");
    EXPECT(mode_kind_of("ddp") == MODE_KIND_DP && mode_kind_of("h2d") == MODE_KIND_OTHER,
           "kinds of ddp and a suite's own mode");
    EXPECT(mode_is_primary(MODE_HOST) && !mode_is_primary("ddp"), "host is a headline mode");
    int ngpu = 0, primary = 0;
    for (int m = 0; GPU_MODES[m].name; m++, ngpu++) {
        const char *n = GPU_MODES[m].name;
        EXPECT(mode_kind_of(n) == MODE_KIND_GPU, "%s: kind", n);
        EXPECT(is_colour(GPU_MODES[m].colour), "%s: colour '%s'", n,
               GPU_MODES[m].colour ? GPU_MODES[m].colour : "(none)");
        EXPECT(mode_rank(n) == m + 1 && strcmp(mode_at_rank(m + 1), n) == 0, "%s: rank %d", n,
               mode_rank(n));
        primary += GPU_MODES[m].primary;
        EXPECT(mode_is_primary(n) == GPU_MODES[m].primary, "%s: headline", n);
        for (int k = 0; k < m; k++)
            EXPECT(strcmp(GPU_MODES[k].colour, GPU_MODES[m].colour) != 0, "%s and %s share a colour",
                   GPU_MODES[k].name, n);
    }
    EXPECT(primary == 1, "%d GPU headline modes, want 1", primary);
    for (int m = 0; DP_MODES[m].name; m++)
        EXPECT(mode_kind_of(DP_MODES[m].name) ==
                       (DP_MODES[m].workers ? MODE_KIND_WORKERS : MODE_KIND_DP) &&
                   mode_rank(DP_MODES[m].name) == 99,
               "%s: a data-parallel (or workers) mode, not coloured", DP_MODES[m].name);
    EXPECT(mode_rank(MODE_HOST) == 0 && mode_at_rank(ngpu + 1) == NULL, "ranks end after the GPU modes");
    /* every GPU mode under every allocator but the default: a GPU mode, no
     * headline, not coloured; its name splits back into mode and allocator */
    for (int m = 0; GPU_MODES[m].name; m++)
        for (int a = 0; GPU_ALLOCS[a].name; a++) {
            char n[64];
            size_t base = 0;
            gpu_alloc_mode_name(GPU_MODES[m].name, &GPU_ALLOCS[a], n, sizeof n);
            const gpu_alloc *got = gpu_alloc_of_mode(n, &base);
            EXPECT(mode_kind_of(n) == MODE_KIND_GPU, "%s: kind", n);
            EXPECT(base == strlen(GPU_MODES[m].name), "%s: its mode's name is %zu long", n, base);
            if (a == 0) {
                EXPECT(strcmp(n, GPU_MODES[m].name) == 0 && !got, "%s: the default keeps the name", n);
                continue;
            }
            EXPECT(got == &GPU_ALLOCS[a], "%s: allocator %s", n, got ? got->name : "none");
            EXPECT(!mode_is_primary(n) && mode_rank(n) == 99, "%s: no headline, no colour", n);
        }
    EXPECT(mode_kind_of("resident+pooled") == MODE_KIND_OTHER && !gpu_alloc_of_mode("resident+pooled", NULL),
           "an unknown allocator names no mode");
    char pal[512];
    mode_palette(pal, sizeof pal);
    int words = 0;
    for (char *w = strtok(pal, " "); w; w = strtok(NULL, " "), words++)
        EXPECT(is_colour(w), "palette word '%s'", w);
    EXPECT(words == ngpu + 1, "palette of %d colours for %d ranks", words, ngpu + 1);
    TEST_END();
}
