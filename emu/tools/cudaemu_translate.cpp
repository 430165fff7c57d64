/* emu/tools/cudaemu_translate.cpp - the source step of the CUDA host emulator:
 * turns the two pieces of CUDA syntax g++ cannot parse into C++ that
 * emu/include understands.  Built first, run over every .cu of the emu
 * flavour (emu/cmake/cuda_flavours.cmake) and by emu/nvcc-emu.
 *
 *   cudaemu-translate [-I DIR]... INPUT.cu OUTPUT.cpp
 *
 * The output is the translation unit nvcc would compile: it defines
 * __NVCC__ and __CUDACC__ (never __CUDA_ARCH__: this is the host pass) and
 * opens with `#include <cuda_runtime.h>` (nvcc includes it in every .cu).  The project
 * headers the .cu includes are translated too: every `#include "x"` (found
 * next to the including file, then in the -I dirs) and `#include <x>` (found
 * in the -I dirs; system and emulator headers are never followed), followed
 * recursively.  A header that needs an edit, or includes one that does, is
 * written translated to OUTPUT.d/<n>-<name>, and the #include lines that
 * reach it name that copy by its absolute path (a copy's other quoted
 * includes name the originals), so a kernel, a launch or `extern __shared__`
 * in a .cuh works as in the .cu.
 *
 *   kernel<<<grid, block[, smem[, stream]]>>>(args...)
 *     becomes  kernel | ::cudaemu::detail::chevron(grid, block, smem, stream)
 *                     | [&](auto &&cudaemu_launch_) { cudaemu_launch_(args...); }
 *     (on the launch's own lines).  Only the `<<<` and `>>>` tokens are
 *     replaced and `; }` follows the argument list, so the kernel expression
 *     (template kernels `k<T, 4>`, `(*fp)`, `table[i]`) and every argument stay
 *     where they were, nested parentheses and commas included.  `kernel |
 *     chevron(...)` binds the kernel first, so the arguments meet its
 *     parameter types in an ordinary call, as with nvcc (NULL or 0 for a
 *     pointer, an int for a float, a derived-class pointer for a base one);
 *     cuda_runtime.h's operators then queue the launch with cudaLaunchKernelEx,
 *     which sets the last error as <<<>>> does (the expression is void).  A launch of a
 *     kernel by name with fewer arguments than parameters gets the kernel's
 *     default arguments appended (a function pointer has none): the
 *     translator records the defaults of every `__global__` declaration it
 *     sees in the .cu and its headers.
 *   cudaLaunchKernel((void *)k, ...), cudaLaunchCooperativeKernel((void *)k, ...)
 *     lose the `(void *)` cast, so the typed forms of cuda_runtime.h know k's
 *     parameters (the runtime's untyped `const void *` forms cannot be emulated);
 *     so does `x.func = (void *)k` (or `->func`) for a kernel k declared in the
 *     unit or its headers: a graph kernel node's cudaKernelNodeParams::func.
 *   extern __shared__ [__align__(n)|alignas(n)] T name[];
 *     becomes  [[maybe_unused]] T *const name = static_cast<T *>(::cudaemu::detail::dyn_smem_base());
 *     valid in a function body and at namespace scope (the emulator's dynamic
 *     shared memory lives at one fixed address).
 *   #pragma unroll [N], _Pragma("unroll [N]")
 *     become  #pragma GCC unroll N  (a literal N, at most 65534) or are
 *     dropped (no count, or an expression), so g++ does not warn (gcc_unroll);
 *     nvcc's own pragmas (nv_diag_suppress, diag_suppress, ...) are dropped.
 *   asm statements in __device__/__global__ function bodies
 *     the single-instruction idioms (special registers, nanosleep, bar.sync 0,
 *     membar/fence) become emulator calls (include/cudaemu/ptx.h); any
 *     other becomes `static_assert(false, "cudaemu: inline PTX '...' is not
 *     emulated")` at its own line (left alone in a __host__ __device__
 *     function, whose asm may be the host path's).
 *   malloc(n), free(p) (calls, not declarations nor members)
 *     become ::cudaemu::detail::device_malloc / device_free: the device heap
 *     in a kernel (cudaLimitMallocHeapSize), the host's malloc elsewhere;
 *     not in a file that declares a function of either name itself (a
 *     class's free member called unqualified).
 *   every statement of a kernel body
 *     is followed by `::cudaemu::detail::yield_point();` (yield_points): where
 *     CUDAEMU_INTERLEAVE=1 may preempt the thread.
 *
 * Comments, string and character literals (raw strings too) are skipped;
 * backslash-newline splices are honoured (a `<<<` inside a multi-line #define
 * is rewritten and the continuation kept).  Line numbers never move: a
 * replacement that swallows newlines is followed by as many (or by
 * backslash-newlines inside a directive), and the output opens with
 * `#line 1 "INPUT"`, so compiler messages and __FILE__/__LINE__ name the
 * original file.  A `<<<` without a matching `>>>(...)` is an error:
 * "INPUT:LINE: error: ..." on stderr, exit 1.  Usage errors exit 2.
 */
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

namespace {

/* The parameters of one __global__ declaration: defaults[i] is the default
 * argument of parameter i ("" when it has none). */
struct KernelDecl {
    std::vector<std::string> defaults;
    std::vector<std::string> tparams; /* names of the template parameters */
    std::string params;               /* the parameter list, defaults left out */
};
typedef std::map<std::string, std::vector<KernelDecl>> KernelTable;

/* One #include "x" / <x> line: [b, e) is the header name with its quotes. */
struct Include {
    size_t b, e;
    std::string name;
    bool angle;
    int target; /* index of the unit it resolves to, -1 when not followed */
};

struct Edit {
    size_t begin, end; /* [begin, end) in the original text */
    std::string text;
    bool directive;    /* inside a preprocessor directive: keep lines with '\' */
};

struct Translator {
    std::string path;
    std::string orig;
    std::string L;            /* the text with backslash-newline splices removed */
    std::vector<size_t> pos;  /* L index -> orig index (size L.size() + 1) */
    std::vector<Edit> edits;
    std::vector<Include> includes;
    const KernelTable *kernels = nullptr;
    const std::set<std::string> *host_named = nullptr; /* kernels' names also given to host functions */
    bool failed = false;
    bool own_heap_names = false; /* the unit declares a function malloc or free */

    void splice()
    {
        for (size_t i = 0; i < orig.size(); ++i) {
            if (orig[i] == '\\') {
                size_t j = i + 1;
                if (j < orig.size() && orig[j] == '\r') ++j;
                if (j < orig.size() && orig[j] == '\n') {
                    i = j;
                    continue;
                }
            }
            L.push_back(orig[i]);
            pos.push_back(i);
        }
        pos.push_back(orig.size());
    }

    size_t line_of(size_t li) const
    {
        size_t o = pos[li], n = 1;
        for (size_t i = 0; i < o; ++i) n += orig[i] == '\n';
        return n;
    }

    void error(size_t li, const char *msg)
    {
        std::fprintf(stderr, "%s:%zu: error: %s\n", path.c_str(), line_of(li), msg);
        failed = true;
    }

    static bool ident_start(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
    static bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_'; }

    /* Skips a comment or literal starting at i (or returns i when none). */
    size_t skip_comment_or_literal(size_t i) const
    {
        const size_t n = L.size();
        if (L[i] == '/' && i + 1 < n && L[i + 1] == '/') {
            while (i < n && L[i] != '\n') ++i;
            return i;
        }
        if (L[i] == '/' && i + 1 < n && L[i + 1] == '*') {
            size_t e = L.find("*/", i + 2);
            return e == std::string::npos ? n : e + 2;
        }
        if (L[i] == '"') {
            /* raw string: R"delim( ... )delim", with an optional u8/u/U/L prefix */
            if (i > 0 && L[i - 1] == 'R') {
                size_t s = i - 1;
                while (s > 0 && ident_char(L[s - 1])) --s;
                std::string pre = L.substr(s, i - 1 - s);
                if (pre.empty() || pre == "u8" || pre == "u" || pre == "U" || pre == "L") {
                    size_t open = L.find('(', i + 1);
                    if (open != std::string::npos) {
                        std::string close = ")" + L.substr(i + 1, open - i - 1) + "\"";
                        size_t e = L.find(close, open + 1);
                        return e == std::string::npos ? n : e + close.size();
                    }
                }
            }
            for (++i; i < n && L[i] != '"' && L[i] != '\n'; ++i)
                if (L[i] == '\\') ++i;
            return i < n ? i + 1 : n;
        }
        if (L[i] == '\'') {
            if (i > 0 && std::isxdigit((unsigned char)L[i - 1])) {
                /* a digit separator (1'000) unless it ends a prefix like u8'x' */
                size_t s = i;
                while (s > 0 && ident_char(L[s - 1])) --s;
                if (std::isdigit((unsigned char)L[s])) return i + 1;
            }
            for (++i; i < n && L[i] != '\'' && L[i] != '\n'; ++i)
                if (L[i] == '\\') ++i;
            return i < n ? i + 1 : n;
        }
        return i;
    }

    void add_edit(size_t lb, size_t le, std::string text, bool directive)
    {
        edits.push_back(Edit{pos[lb], pos[le], std::move(text), directive});
    }

    /* The length of a launch's closing `>>>` (or the old `>> >` spelling,
     * spaces between) at j; 0 when there is none. */
    size_t close_chevron(size_t j) const
    {
        if (L.compare(j, 3, ">>>") == 0) return 3;
        if (L.compare(j, 2, ">>") != 0) return 0;
        size_t k = j + 2;
        while (k < L.size() && (L[k] == ' ' || L[k] == '\t')) ++k;
        return k < L.size() && L[k] == '>' && k > j + 2 ? k + 1 - j : 0;
    }

    /* k<<<cfg>>>(args): i at "<<<" (`<< <` of old code: open is its length). */
    void chevron(size_t i, size_t open, bool directive)
    {
        const size_t n = L.size();
        int depth = 0;
        size_t j = i + open;
        while (j < n) {
            size_t k = skip_comment_or_literal(j);
            if (k != j) { j = k; continue; }
            char c = L[j];
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if (c == ')' || c == ']' || c == '}') {
                if (--depth < 0) break;
            } else if (c == ';' && depth == 0) break;
            else if (depth == 0 && close_chevron(j)) {
                const size_t shut = close_chevron(j);
                size_t a = j + shut;
                for (;;) { /* to the argument list */
                    while (a < n && std::isspace((unsigned char)L[a])) ++a;
                    size_t b = a < n ? skip_comment_or_literal(a) : a;
                    if (b == a || L[a] == '"' || L[a] == '\'') break;
                    a = b;
                }
                if (a >= n || L[a] != '(') {
                    error(i, "kernel launch: `<<<...>>>` must be followed by the argument list `(...)`");
                    return;
                }
                const size_t close = match_close(a);
                if (close >= n) {
                    error(i, "kernel launch: the argument list `(...)` after `>>>` is not closed");
                    return;
                }
                kernel_cast(i, directive);
                add_edit(i, i + open, " | ::cudaemu::detail::chevron(", directive);
                add_edit(j, j + shut, ") | [&](auto &&cudaemu_launch_) { cudaemu_launch_", directive);
                add_defaults(i, a, close, directive);
                add_edit(close + 1, close + 1, "; }", directive);
                return;
            }
            ++j;
        }
        error(i, "kernel launch: `<<<` without a matching `>>>`");
    }

    /* Skips spaces and comments from i. */
    size_t skip_space(size_t i) const
    {
        const size_t n = L.size();
        while (i < n) {
            if (std::isspace((unsigned char)L[i])) { ++i; continue; }
            if (L[i] == '/') {
                size_t k = skip_comment_or_literal(i);
                if (k != i) { i = k; continue; }
            }
            break;
        }
        return i;
    }

    /* The index of the bracket closing the one at `open` (n when none). */
    size_t match_close(size_t open) const
    {
        const size_t n = L.size();
        int depth = 0;
        for (size_t j = open; j < n;) {
            size_t k = skip_comment_or_literal(j);
            if (k != j) { j = k; continue; }
            char c = L[j];
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if ((c == ')' || c == ']' || c == '}') && --depth == 0) return j;
            ++j;
        }
        return n;
    }

    /* The top-level comma-separated pieces of the list in (open, close). */
    std::vector<std::pair<size_t, size_t>> split_list(size_t open, size_t close,
                                                      bool angles) const
    {
        std::vector<std::pair<size_t, size_t>> out;
        int depth = 0, angle = 0;
        bool after_eq = false;
        size_t start = open + 1;
        for (size_t j = open + 1; j < close;) {
            size_t k = skip_comment_or_literal(j);
            if (k != j) { j = k; continue; }
            char c = L[j];
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if (c == ')' || c == ']' || c == '}') --depth;
            else if (angles && !after_eq && depth == 0 && c == '<') ++angle;
            else if (angles && !after_eq && depth == 0 && c == '>' && angle > 0) --angle;
            else if (c == '=' && depth == 0 && angle == 0) after_eq = true;
            else if (c == ',' && depth == 0 && angle == 0) {
                out.emplace_back(start, j);
                start = j + 1;
                after_eq = false;
            }
            ++j;
        }
        if (skip_space(start) < close || !out.empty()) out.emplace_back(start, close);
        return out;
    }

    std::string trimmed(size_t b, size_t e) const
    {
        b = skip_space(b);
        while (e > b && std::isspace((unsigned char)L[e - 1])) --e;
        std::string t = L.substr(b, e - b);
        for (char &c : t)
            if (c == '\n' || c == '\r') c = ' ';
        return t;
    }

    /* `__global__ ... name(params)` with i after __global__: the kernel's
     * name and the parentheses of its parameter list (false when this is
     * not a function declaration); the qualifiers' parenthesized arguments
     * are skipped, and *bounds gets __launch_bounds__'s as ", (a), (b)". */
    bool kernel_head(size_t i, std::string &name, size_t &open, size_t &close,
                     std::string *bounds) const
    {
        const size_t n = L.size();
        std::string last;
        for (size_t j = skip_space(i); j < n; j = skip_space(j)) {
            char c = L[j];
            if (c == ';' || c == '{' || c == '}' || c == '=') return false;
            if (ident_start(c)) {
                size_t e = j;
                while (e < n && ident_char(L[e])) ++e;
                last = L.substr(j, e - j);
                j = e;
                continue;
            }
            if (c != '(') { ++j; continue; }
            close = match_close(j);
            if (close >= n) return false;
            if (last == "__launch_bounds__" && bounds) {
                bounds->clear();
                for (const auto &p : split_list(j, close, false))
                    *bounds += ", (" + trimmed(p.first, p.second) + ")";
            }
            if (last == "__launch_bounds__" || last == "__maxnreg__" ||
                last == "__cluster_dims__" || last == "__attribute__" ||
                last == "__align__" || last == "alignas" || last == "__declspec" || last.empty()) {
                j = close + 1; /* a qualifier's argument */
                last.clear();
                continue;
            }
            name = last;
            open = j;
            return true;
        }
        return false;
    }

    /* `__global__ ... name(params)` with i after __global__: records the
     * default arguments of name in `table`. */
    void kernel_decl(size_t g, size_t i, KernelTable &table) const
    {
        std::string last;
        size_t j = 0, close = 0;
        if (!kernel_head(i, last, j, close, nullptr)) return;
        std::vector<std::string> tparams = template_params(g);
        KernelDecl d;
        d.tparams = tparams;
        for (const auto &p : split_list(j, close, true)) {
            size_t eq = std::string::npos;
            int depth = 0, angle = 0;
            for (size_t x = p.first; x < p.second;) {
                size_t k = skip_comment_or_literal(x);
                if (k != x) { x = k; continue; }
                char y = L[x];
                if (y == '(' || y == '[' || y == '{') ++depth;
                else if (y == ')' || y == ']' || y == '}') --depth;
                else if (y == '<' && depth == 0) ++angle;
                else if (y == '>' && depth == 0 && angle > 0) --angle;
                else if (y == '=' && depth == 0 && angle == 0) { eq = x; break; }
                ++x;
            }
            const std::string decl = trimmed(p.first, eq == std::string::npos ? p.second : eq);
            if (eq == std::string::npos) {
                if (decl == "void") continue;
                d.defaults.emplace_back();
            } else {
                d.defaults.push_back(trimmed(eq + 1, p.second));
            }
            d.params += (d.params.empty() ? "" : ", ") + decl;
        }
        table[last].push_back(d);
    }

    /* `__global__ ... name(params) ... { body }` with i after the __global__
     * at g: a kernel's definition registers what the launch must know before
     * it runs.  After the body's `{`: its __launch_bounds__ (KernelBounds);
     * after each static `__shared__` declaration of the body: each variable
     * (SharedVar), for the kernel's static shared memory total and for the
     * poison written over it before every block.  Both name the kernel
     * itself, `&name` or `&name<its template parameters>`, as a template
     * argument whose static member registers at program start. */
    void kernel_definition(size_t g, size_t i)
    {
        const size_t n = L.size();
        std::string name, bounds;
        size_t open = 0, close = 0;
        if (!kernel_head(i, name, open, close, &bounds)) return;
        (void)open;
        /* to the body: past const, noexcept(...), attributes; `;` or `=`: a declaration */
        size_t ob = skip_space(close + 1);
        while (ob < n && L[ob] != '{') {
            if (L[ob] == ';' || L[ob] == '=' || L[ob] == '}') return;
            if (L[ob] == '(' || L[ob] == '[') {
                ob = match_close(ob);
                if (ob >= n) return;
            }
            ob = skip_space(ob + 1);
        }
        if (ob >= n) return;
        const size_t cb = match_close(ob);
        if (cb >= n) return;
        std::string self = "&" + name;
        const std::vector<std::string> tp = template_params(g);
        if (!tp.empty()) {
            self += "<";
            for (size_t k = 0; k < tp.size(); ++k) self += (k ? ", " : "") + tp[k];
            self += ">";
        }
        if (!bounds.empty())
            add_edit(ob + 1, ob + 1, " (void)::cudaemu::detail::KernelBounds<" + self + bounds +
                                         ">::registered;", false);
        for (size_t x = ob + 1; x < cb;) {
            size_t k = skip_comment_or_literal(x);
            if (k != x) { x = k; continue; }
            if (!ident_start(L[x]) || ident_char(L[x - 1])) { ++x; continue; }
            size_t e = x;
            while (e < n && ident_char(L[e])) ++e;
            if (L.compare(x, e - x, "__shared__") == 0) shared_decl(x, e, self);
            x = e;
        }
        yield_points(ob, cb);
    }

    /* The word at i (an identifier), or "" when none starts there. */
    std::string word_at(size_t i) const
    {
        if (i >= L.size() || !ident_start(L[i])) return std::string();
        size_t e = i;
        while (e < L.size() && ident_char(L[e])) ++e;
        return L.substr(i, e - i);
    }

    /* The body {ob .. cb} of a kernel: a yield point
     * `::cudaemu::detail::yield_point();` after every `;` that ends a
     * statement (outside parentheses and brackets, so not in a for(;;)
     * header), where CUDAEMU_INTERLEAVE=1 may preempt the thread (scheduler.cpp).
     * Not before `else` or `while` (the statement may be the body of an if
     * or a do), not after `[[attribute]];` (a fallthrough must precede its
     * case), not in the body of a struct, class, union or enum declared in
     * the kernel, not in a preprocessor directive.  One statement more per
     * statement: no line moves. */
    void yield_points(size_t ob, size_t cb)
    {
        int paren = 0;
        size_t stmt = ob + 1; /* where the current statement began */
        for (size_t x = ob + 1; x < cb;) {
            size_t k = skip_comment_or_literal(x);
            if (k != x) { x = k; continue; }
            const char c = L[x];
            if (c == '#') { /* a directive when first on its line */
                size_t b = x;
                while (b > 0 && (L[b - 1] == ' ' || L[b - 1] == '\t')) --b;
                if (b == 0 || L[b - 1] == '\n') {
                    while (x < cb && L[x] != '\n') ++x;
                    stmt = x;
                    continue;
                }
            }
            if (c == '(' || c == '[') ++paren;
            else if ((c == ')' || c == ']') && paren > 0) --paren;
            else if (paren == 0 && c == '{') {
                bool aggregate = false; /* struct S { ... }: its members are no statements */
                for (size_t y = stmt; y < x;) {
                    std::string w = word_at(y);
                    if (w.empty()) { ++y; continue; }
                    if ((y == 0 || !ident_char(L[y - 1])) &&
                        (w == "struct" || w == "class" || w == "union" || w == "enum"))
                        aggregate = true;
                    y += w.size();
                }
                if (aggregate) {
                    x = match_close(x);
                    if (x >= cb) return;
                }
                stmt = x + 1;
            } else if (paren == 0 && c == '}') {
                stmt = x + 1;
            } else if (paren == 0 && c == ';') {
                size_t t = x;
                while (t > stmt && std::isspace((unsigned char)L[t - 1])) --t;
                const bool attribute = t >= 2 && L[t - 1] == ']' && L[t - 2] == ']';
                const std::string after = word_at(skip_space(x + 1));
                if (!attribute && after != "else" && after != "while")
                    add_edit(x + 1, x + 1, " ::cudaemu::detail::yield_point();", false);
                stmt = x + 1;
            }
            ++x;
        }
    }

    /* A static `__shared__` declaration in a kernel body, `__shared__` at
     * [s, e): each declared variable is registered after its `;` (an
     * `extern __shared__` declaration is dynamic shared memory: not here). */
    void shared_decl(size_t s, size_t e, const std::string &self)
    {
        size_t st = s; /* the statement's start: is it extern? */
        while (st > 0 && L[st - 1] != ';' && L[st - 1] != '{' && L[st - 1] != '}') --st;
        for (size_t x = st; x < s; ++x)
            if (L.compare(x, 6, "extern") == 0 && !ident_char(L[x + 6]) &&
                (x == 0 || !ident_char(L[x - 1])))
                return;
        const size_t n = L.size();
        size_t semi = e;
        int depth = 0;
        while (semi < n) {
            size_t k = skip_comment_or_literal(semi);
            if (k != semi) { semi = k; continue; }
            char c = L[semi];
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if (c == ')' || c == ']' || c == '}') --depth;
            else if (c == ';' && depth == 0) break;
            if (depth < 0) return;
            ++semi;
        }
        if (semi >= n) return;
        std::string regs;
        for (const auto &p : split_list(e - 1, semi, true)) {
            /* the declarator's name: the last identifier at depth 0 before
             * its first `[` or `=` (qualifiers' parenthesized arguments skipped) */
            std::string nm;
            int d = 0;
            for (size_t x = p.first; x < p.second;) {
                size_t k = skip_comment_or_literal(x);
                if (k != x) { x = k; continue; }
                char c = L[x];
                if (d == 0 && (c == '[' || c == '=')) break;
                if (c == '(' || c == '[' || c == '{') ++d;
                else if (c == ')' || c == ']' || c == '}') --d;
                if (d == 0 && ident_start(c) && (x == 0 || !ident_char(L[x - 1]))) {
                    size_t y = x;
                    while (y < p.second && ident_char(L[y])) ++y;
                    nm = L.substr(x, y - x);
                    x = y;
                    continue;
                }
                ++x;
            }
            if (nm.empty() || nm == "__align__" || nm == "alignas" || nm == "__attribute__") return;
            regs += " (void)::cudaemu::detail::SharedVar<" + self + ", &" + nm + ">::registered;";
        }
        add_edit(semi + 1, semi + 1, regs, false);
    }

    /* The names of the template parameters of the declaration whose
     * `__global__` is at g (none when it is not a template). */
    std::vector<std::string> template_params(size_t g) const
    {
        std::vector<std::string> names;
        size_t e = g;
        for (;;) { /* back over `static`, `inline` & co. between template<...> and __global__ */
            while (e > 0 && std::isspace((unsigned char)L[e - 1])) --e;
            size_t w = e;
            while (w > 0 && ident_char(L[w - 1])) --w;
            const std::string word = L.substr(w, e - w);
            if (word != "static" && word != "inline" && word != "__inline__" &&
                word != "__forceinline__" && word != "__noinline__" && word != "extern" &&
                word != "__host__" && word != "__device__")
                break;
            e = w;
        }
        if (e == 0 || L[e - 1] != '>') return names;
        int depth = 0;
        size_t open = e - 1;
        for (;;) {
            char c = L[open];
            if (c == '>') ++depth;
            else if (c == '<' && --depth == 0) break;
            if (open == 0) return names;
            --open;
        }
        size_t t = open;
        while (t > 0 && std::isspace((unsigned char)L[t - 1])) --t;
        if (t < 8 || L.compare(t - 8, 8, "template") != 0) return names;
        std::string piece;
        depth = 0;
        auto name_of = [&](const std::string &p) {
            size_t eq = p.find('=');
            std::string h = p.substr(0, eq);
            size_t x = h.size();
            while (x > 0 && !ident_char(h[x - 1])) --x;
            size_t y = x;
            while (y > 0 && ident_char(h[y - 1])) --y;
            /* a pack (typename... Ts) is named Ts... where it is used */
            names.push_back(h.substr(y, x - y) + (h.find("...") != std::string::npos ? "..." : ""));
        };
        for (size_t x = open + 1; x < e - 1; ++x) {
            char c = L[x];
            if (c == '<' || c == '(') ++depth;
            if (c == '>' || c == ')') --depth;
            if (c == ',' && depth == 0) { name_of(piece); piece.clear(); continue; }
            piece += c;
        }
        if (!piece.empty()) name_of(piece);
        return names;
    }

    /* A default argument with the launch's template arguments put in for the
     * kernel's template parameters ("" when one is needed and not given). */
    static std::string instantiate(const std::string &def, const KernelDecl &d,
                                   const std::vector<std::string> &targs)
    {
        std::string out;
        for (size_t x = 0; x < def.size();) {
            if (!ident_start(def[x]) || (x > 0 && ident_char(def[x - 1]))) {
                out += def[x++];
                continue;
            }
            size_t y = x;
            while (y < def.size() && ident_char(def[y])) ++y;
            const std::string id = def.substr(x, y - x);
            size_t k = 0;
            while (k < d.tparams.size() && d.tparams[k] != id) ++k;
            if (k == d.tparams.size()) out += id;
            else if (k < targs.size()) out += targs[k];
            else return "";
            x = y;
        }
        return out;
    }

    /* k<<<...>>>(args) with i at "<<<", a at "(" and close at its ")":
     * appends k's default arguments when the launch passes fewer than its
     * parameters. */
    void add_defaults(size_t i, size_t a, size_t close, bool directive)
    {
        if (!kernels) return;
        /* the kernel's name: the identifier before <<< (or before its <...>) */
        size_t e = i;
        std::vector<std::string> targs;
        while (e > 0 && std::isspace((unsigned char)L[e - 1])) --e;
        if (e > 0 && L[e - 1] == '>') {
            const size_t gt = e - 1;
            int depth = 0;
            while (e > 0) {
                char c = L[--e];
                if (c == '>') ++depth;
                else if (c == '<' && --depth == 0) break;
            }
            for (const auto &p : split_list(e, gt, true)) targs.push_back(trimmed(p.first, p.second));
            while (e > 0 && std::isspace((unsigned char)L[e - 1])) --e;
        }
        size_t b = e;
        while (b > 0 && ident_char(L[b - 1])) --b;
        if (b == e) return;
        auto it = kernels->find(L.substr(b, e - b));
        if (it == kernels->end()) return;
        const size_t nargs = split_list(a, close, false).size();
        for (const KernelDecl &d : it->second) {
            if (d.defaults.size() <= nargs) continue;
            std::string tail;
            bool ok = true;
            for (size_t p = nargs; p < d.defaults.size() && ok; ++p) {
                const std::string v = d.defaults[p].empty() ? "" : instantiate(d.defaults[p], d, targs);
                ok = !v.empty();
                tail += (p == 0 ? "" : ", ") + v;
            }
            if (!ok) continue;
            add_edit(close, close, tail, directive);
            return;
        }
    }

    /* The kernel named just before a launch's `<<<` at i: its name and where
     * it starts (false when it is not a plain identifier). */
    bool launch_name(size_t i, size_t &b, std::string &name) const
    {
        size_t e = i;
        while (e > 0 && std::isspace((unsigned char)L[e - 1])) --e;
        b = e;
        while (b > 0 && ident_char(L[b - 1])) --b;
        if (b == e || !ident_start(L[b])) return false;
        name = L.substr(b, e - b);
        return true;
    }

    /* `k<<<...>>>` where a host function shares the kernel's name (nvcc
     * takes the kernel): k is cast to the kernel's pointer type, so the
     * launch sees one function, not an overload set.  Only for a kernel
     * with one parameter list, not a template, named without `::`. */
    void kernel_cast(size_t i, bool directive)
    {
        size_t b = 0;
        std::string name;
        if (!kernels || !host_named || !launch_name(i, b, name) || !host_named->count(name))
            return;
        if (b >= 2 && L[b - 1] == ':' && L[b - 2] == ':') return;
        auto it = kernels->find(name);
        if (it == kernels->end()) return;
        const std::string &params = it->second.front().params;
        for (const KernelDecl &d : it->second)
            if (!d.tparams.empty() || d.params != params) return;
        add_edit(b, b, "static_cast<void (*)(" + params + ")>(", directive);
        add_edit(i, i, ")", directive);
    }

    /* The names of kernels that a host (or __device__) function declaration
     * without __global__ also names (`T name(` at a statement's start). */
    void collect_host_named(std::set<std::string> &out) const
    {
        const size_t n = L.size();
        for (size_t i = 0; i < n;) {
            size_t k = skip_comment_or_literal(i);
            if (k != i) { i = k; continue; }
            if (!ident_start(L[i]) || (i > 0 && ident_char(L[i - 1]))) { ++i; continue; }
            size_t e = i;
            while (e < n && ident_char(L[e])) ++e;
            const std::string name = L.substr(i, e - i);
            const size_t after = skip_space(e);
            if (after >= n || L[after] != '(' || !kernels || !kernels->count(name)) { i = e; continue; }
            size_t pe = i; /* the word before: a type */
            while (pe > 0 && std::isspace((unsigned char)L[pe - 1])) --pe;
            size_t pb = pe;
            while (pb > 0 && ident_char(L[pb - 1])) --pb;
            static const char *const not_types[] = {"return", "else", "case", "new", "delete",
                                                    "throw", "sizeof", "do", "co_return",
                                                    "co_yield", "goto"};
            const std::string prev = L.substr(pb, pe - pb);
            bool type = pb < pe && ident_start(L[pb]);
            for (const char *w : not_types) type = type && prev != w;
            if (type) { /* a declaration without __global__ in its statement */
                size_t st = pb;
                while (st > 0 && L[st - 1] != ';' && L[st - 1] != '{' && L[st - 1] != '}') --st;
                if (L.substr(st, i - st).find("__global__") == std::string::npos) out.insert(name);
            }
            i = e;
        }
    }

    /* Collects the default arguments of the __global__ declarations. */
    void collect_kernels(KernelTable &table) const
    {
        const size_t n = L.size();
        for (size_t i = 0; i < n;) {
            size_t k = skip_comment_or_literal(i);
            if (k != i) { i = k; continue; }
            if (ident_start(L[i]) && (i == 0 || !ident_char(L[i - 1]))) {
                size_t e = i;
                while (e < n && ident_char(L[e])) ++e;
                if (L.compare(i, e - i, "__global__") == 0) kernel_decl(i, e, table);
                i = e;
                continue;
            }
            ++i;
        }
    }

    /* #include "x" or <x> at a directive starting at i ('#'): records it and
     * returns the end of the header name (or i + 1). */
    size_t include_directive(size_t i)
    {
        const size_t n = L.size();
        size_t j = i + 1;
        while (j < n && (L[j] == ' ' || L[j] == '\t')) ++j;
        if (L.compare(j, 7, "include") != 0 || (j + 7 < n && ident_char(L[j + 7]))) return i + 1;
        j += 7;
        while (j < n && (L[j] == ' ' || L[j] == '\t')) ++j;
        if (j >= n || (L[j] != '"' && L[j] != '<')) return i + 1;
        const char close = L[j] == '"' ? '"' : '>';
        size_t e = j + 1;
        while (e < n && L[e] != close && L[e] != '\n') ++e;
        if (e >= n || L[e] != close) return i + 1;
        includes.push_back(Include{j, e + 1, L.substr(j + 1, e - j - 1), close == '>', -1});
        return e + 1;
    }

    struct Tok { size_t b, e; };

    /* extern ... __shared__ ... name[]; with i at "extern", e its end. */
    /* The end of a `(void *)` or `(const void *)` cast at j (npos when there is none). */
    size_t void_cast_end(size_t j) const
    {
        const size_t n = L.size();
        auto ws = [&]() { while (j < n && std::isspace((unsigned char)L[j])) ++j; };
        auto word = [&](const char *w) {
            size_t len = std::strlen(w);
            if (L.compare(j, len, w) != 0 || (j + len < n && ident_char(L[j + len]))) return false;
            j += len;
            return true;
        };
        if (j >= n || L[j] != '(') return std::string::npos;
        ++j;
        ws();
        if (word("const")) ws();
        if (!word("void")) return std::string::npos;
        ws();
        if (j >= n || L[j] != '*') return std::string::npos;
        ++j;
        ws();
        if (j >= n || L[j] != ')') return std::string::npos;
        return j + 1;
    }

    /* cudaLaunchKernel((void *)k, ...) and cudaLaunchCooperativeKernel((void *)k, ...),
     * e after the name: the `(void *)` (or `(const void *)`) cast is dropped, so
     * the typed templates of cuda_runtime.h see the kernel's parameter types. */
    void untyped_launch(size_t e, bool directive)
    {
        size_t j = skip_space(e);
        if (j >= L.size() || L[j] != '(') return;
        const size_t cast = skip_space(j + 1), end = void_cast_end(cast);
        if (end != std::string::npos) edits.push_back(Edit{pos[cast], pos[end], " ", directive});
    }

    /* `.func = (void *)k` or `->func = (void *)k` (a graph kernel node's
     * cudaKernelNodeParams::func), i at "func", e after it, with k a kernel
     * declared in the unit or its headers (`&k` too): the cast is dropped,
     * so func keeps the kernel's type (cudaemu/graph.h). */
    void kernel_node_func(size_t i, size_t e, bool directive)
    {
        size_t b = i;
        while (b > 0 && std::isspace((unsigned char)L[b - 1])) --b;
        if (!(b >= 1 && L[b - 1] == '.') && !(b >= 2 && L[b - 2] == '-' && L[b - 1] == '>'))
            return;
        size_t j = skip_space(e);
        if (j + 1 >= L.size() || L[j] != '=' || L[j + 1] == '=') return;
        const size_t cast = skip_space(j + 1), end = void_cast_end(cast);
        if (end == std::string::npos || !kernels) return;
        size_t k = skip_space(end);
        if (k < L.size() && L[k] == '&') k = skip_space(k + 1);
        size_t ke = k;
        while (ke < L.size() && ident_char(L[ke])) ++ke;
        if (ke == k || !ident_start(L[k]) || !kernels->count(L.substr(k, ke - k))) return;
        edits.push_back(Edit{pos[cast], pos[end], " ", directive});
    }

    void extern_shared(size_t i, size_t e, bool directive)
    {
        const size_t n = L.size();
        std::vector<Tok> toks;
        bool shared = false;
        size_t j = e;
        int depth = 0;
        while (j < n) {
            if (L[j] == '\n' && directive) break; /* a macro's end ends the declaration */
            if (std::isspace((unsigned char)L[j])) { ++j; continue; }
            size_t k = skip_comment_or_literal(j);
            if (k != j) {
                if (L[j] == '"' || L[j] == '\'') return; /* extern "C" ...: not ours */
                j = k;
                continue;
            }
            char c = L[j];
            if (c == '{' || c == '}' || c == '=' || c == '#') return;
            if (c == ';' && depth == 0) break;
            if (c == '(' || c == '[') ++depth;
            if (c == ')' || c == ']') --depth;
            size_t b = j;
            if (ident_start(c)) {
                while (j < n && ident_char(L[j])) ++j;
                if (L.compare(b, j - b, "__shared__") == 0) shared = true;
            } else if (c == ':' && j + 1 < n && L[j + 1] == ':') {
                j += 2;
            } else {
                ++j;
            }
            toks.push_back(Tok{b, j});
        }
        if (!shared || j >= n) return;
        const bool has_semi = L[j] == ';'; /* else the end of a #define */
        const size_t semi = has_semi ? j : j - 1;
        auto text = [&](const Tok &t) { return L.substr(t.b, t.e - t.b); };
        /* declarator: name [ ] at the end, or name [ ] [ N ]... (an array of
         * rows: `extern __shared__ float s[][33];` is a float (*)[33]) */
        size_t m = toks.size();
        std::string rows; /* the sized extents after the unsized one, "[N][M]" */
        while (m >= 3 && text(toks[m - 1]) == "]" && text(toks[m - 2]) != "[") {
            size_t o = m - 1;
            int d = 0;
            for (; o > 0; --o) {
                if (text(toks[o]) == "]") ++d;
                else if (text(toks[o]) == "[" && --d == 0) break;
            }
            if (text(toks[o]) != "[") break;
            std::string ext;
            for (size_t t = o; t < m; ++t) ext += text(toks[t]);
            rows = ext + rows;
            m = o;
        }
        if (m < 4 || text(toks[m - 1]) != "]" || text(toks[m - 2]) != "[" ||
            !ident_start(L[toks[m - 3].b])) {
            error(i, "extern __shared__: expected `extern __shared__ T name[];` (one "
                     "unsized array, or `T name[][N]`)");
            return;
        }
        const std::string name = text(toks[m - 3]);
        std::string type;
        for (size_t t = 0; t + 3 < m; ++t) {
            std::string s = text(toks[t]);
            if (s == "__shared__" || s == "extern") continue;
            if (s == "__align__" || s == "alignas" || s == "__attribute__" ||
                s == "__declspec") {
                /* drop the qualifier and its parenthesized argument */
                int d = 0;
                size_t u = t + 1;
                for (; u + 3 < m; ++u) {
                    std::string x = text(toks[u]);
                    if (x == "(") ++d;
                    else if (x == ")" && --d == 0) break;
                }
                t = u;
                continue;
            }
            if (!type.empty()) type += ' ';
            type += s;
        }
        if (type.empty()) {
            error(i, "extern __shared__: no element type");
            return;
        }
        const std::string decl = rows.empty() ? type + " *const " + name
                                              : type + " (*const " + name + ")" + rows;
        add_edit(i, semi + 1,
                 "[[maybe_unused]] " + decl + " = static_cast<" + type +
                     (rows.empty() ? " *" : " (*)" + rows) + ">(::cudaemu::detail::dyn_smem_base());",
                 directive);
    }

    /* CUDA's `#pragma unroll [N]` and `_Pragma("unroll [N]")` in g++'s
     * spelling, which g++ does not warn about (-Wunknown-pragmas): the text
     * after `unroll` (a literal count, maybe in parentheses) gives
     * `GCC unroll N` (at most 65534, GCC's limit); none, or an expression (a
     * template parameter or a macro, which GCC's pragma cannot take), gives
     * "": the pragma is dropped (a full unroll only makes code faster). */
    static std::string gcc_unroll(std::string a)
    {
        auto trim = [](std::string &t) {
            t.erase(0, t.find_first_not_of(" \t\r\n"));
            t.erase(t.find_last_not_of(" \t\r\n") + 1);
        };
        trim(a);
        if (a.size() >= 2 && a.front() == '(' && a.back() == ')') a = a.substr(1, a.size() - 2);
        trim(a);
        while (!a.empty() && (a.back() == 'u' || a.back() == 'U' || a.back() == 'l' || a.back() == 'L'))
            a.pop_back();
        if (a.empty() || a.find_first_not_of("0123456789") != std::string::npos || a.size() > 18)
            return "";
        return "GCC unroll " + std::to_string(std::min(std::stoull(a), 65534ull));
    }

    /* the word w at i, not part of a longer identifier? */
    bool word_at(size_t i, const char *w) const
    {
        const size_t m = std::strlen(w);
        return L.compare(i, m, w) == 0 && (i + m >= L.size() || !ident_char(L[i + m]));
    }

    /* the text of a pragma starts with one of nvcc's own (`nv_diag_suppress`,
     * `diag_suppress`, ...)?  They only tune nvcc's messages; g++ would warn */
    static bool nvcc_pragma(const std::string &text)
    {
        return text.compare(0, 3, "nv_") == 0 || text.compare(0, 5, "diag_") == 0;
    }

    /* `# pragma unroll ...` at the directive starting at i ('#'): rewritten up
     * to the line's end or a comment; dropped, as nvcc's own pragmas are, `#`
     * alone is the null directive */
    void pragma_directive(size_t i)
    {
        const size_t n = L.size();
        auto blank = [&](size_t k) {
            while (k < n && (L[k] == ' ' || L[k] == '\t')) ++k;
            return k;
        };
        const size_t p = blank(i + 1);
        if (!word_at(p, "pragma")) return;
        const size_t u = blank(p + 6);
        size_t w = u;
        while (w < n && ident_char(L[w])) ++w;
        const bool unroll = w - u == 6 && L.compare(u, 6, "unroll") == 0;
        if (!unroll && !nvcc_pragma(L.substr(u, w - u))) return;
        size_t end = w;
        while (end < n && L[end] != '\n' && L.compare(end, 2, "//") != 0 && L.compare(end, 2, "/*") != 0)
            ++end;
        const std::string gcc = unroll ? gcc_unroll(L.substr(w, end - w)) : "";
        add_edit(p, end, gcc.empty() ? "" : "pragma " + gcc, true);
    }

    /* `_Pragma ( "unroll ..." )` (or an nvcc pragma) at [i, e): the string
     * rewritten, or the whole operator dropped */
    void unroll_operator(size_t i, size_t e, bool directive)
    {
        const size_t n = L.size();
        auto blank = [&](size_t k) {
            while (k < n && std::isspace((unsigned char)L[k])) ++k;
            return k;
        };
        const size_t open = blank(e);
        if (open >= n || L[open] != '(') return;
        const size_t q = blank(open + 1);
        if (q >= n || L[q] != '"') return;
        const size_t qe = skip_comment_or_literal(q), close = blank(qe);
        if (close >= n || L[close] != ')' || qe < q + 2) return;
        const std::string body = L.substr(q + 1, qe - q - 2);
        const size_t b = body.find_first_not_of(" \t");
        if (b == std::string::npos) return;
        const bool unroll = body.compare(b, 6, "unroll") == 0 &&
                            (b + 6 == body.size() || !ident_char(body[b + 6]));
        if (!unroll && !nvcc_pragma(body.substr(b))) return;
        const std::string gcc = unroll ? gcc_unroll(body.substr(b + 6)) : "";
        if (gcc.empty())
            add_edit(i, close + 1, "", directive);
        else
            add_edit(q, qe, "\"" + gcc + "\"", directive);
    }

    /* A call `malloc(` or `free(` at [i, e) (not `x.free(`, `p->malloc(`,
     * `std::free(`, nor a declaration `void *malloc(`) calls the emulator's
     * device heap instead: in a kernel it counts against
     * cudaLimitMallocHeapSize (NULL past it, as a GPU's), elsewhere it is
     * the host's malloc and free. */
    void device_heap_call(size_t i, size_t e, bool directive)
    {
        const size_t after = skip_space(e);
        if (after >= L.size() || L[after] != '(') return;
        size_t pe = i;
        while (pe > 0 && std::isspace((unsigned char)L[pe - 1])) --pe;
        if (pe > 0) {
            const char c = L[pe - 1];
            if (c == '.' || c == '>' || c == ':' || c == '*' || c == '&' || c == '~') return;
            if (ident_char(c)) { /* a type before it: a declaration */
                size_t pb = pe;
                while (pb > 0 && ident_char(L[pb - 1])) --pb;
                const std::string prev = L.substr(pb, pe - pb);
                if (prev != "return" && prev != "else" && prev != "do") {
                    own_heap_names = true; /* the unit's own malloc or free (a member?) */
                    return;
                }
            }
        }
        add_edit(i, e, e - i == 6 ? "::cudaemu::detail::device_malloc"
                                  : "::cudaemu::detail::device_free", directive);
    }

    /* `static __shared__ T x;` (or `__shared__ static`), `__shared__` at
     * [s, e): __shared__ is `static` here already, so the statement's own
     * `static` goes (a repeated `static` is an error in C++). */
    void static_shared(size_t s, size_t e, bool directive)
    {
        const size_t n = L.size();
        size_t st = s;
        while (st > 0 && L[st - 1] != ';' && L[st - 1] != '{' && L[st - 1] != '}' &&
               L[st - 1] != '\n')
            --st;
        size_t en = e;
        while (en < n && L[en] != ';' && L[en] != '{' && L[en] != '=' && L[en] != '[' &&
               L[en] != '\n')
            ++en;
        for (size_t x = st; x < en; ++x) {
            if (x < s || x >= e) {
                if (L.compare(x, 6, "static") == 0 && (x == 0 || !ident_char(L[x - 1])) &&
                    (x + 6 >= n || !ident_char(L[x + 6])))
                    add_edit(x, x + 6, "", directive);
            }
        }
    }

    /* The #include lines only (before kernels and edits). */
    /* ---- inline PTX in device code (asm statements) ----
     * The asm statements of __device__ and __global__ function bodies: the
     * single-instruction idioms public code uses become emulator calls
     * (ptx_rewrite); any other becomes a static_assert that names it, so the
     * compile stops at the asm's own file and line, after preprocessing (an
     * asm under `#ifdef __CUDA_ARCH__` is never compiled here).  Host asm is
     * left alone. */
    std::set<size_t> asm_done; /* asm statements already rewritten */

    /* With e after `__device__`/`__global__`: the `{` of the function body
     * it heads (a parameter list came first), or npos for a variable. */
    size_t function_body(size_t e) const
    {
        const size_t n = L.size();
        bool params = false;
        for (size_t j = skip_space(e); j < n; j = skip_space(j)) {
            const char c = L[j];
            if (c == ';' || c == '=' || c == '}' || c == ',') return std::string::npos;
            if (c == '{') return params ? j : std::string::npos;
            if (c == '(' || c == '[') {
                params = params || c == '(';
                j = match_close(j);
                if (j >= n) return std::string::npos;
            } else if (c == '"' || c == '\'') {
                j = skip_comment_or_literal(j);
                continue;
            }
            ++j;
        }
        return std::string::npos;
    }

    void device_body(size_t e)
    {
        const size_t ob = function_body(e);
        if (ob == std::string::npos) return;
        const size_t cb = match_close(ob);
        if (cb >= L.size()) return;
        /* a __host__ __device__ function: its unknown asm may be the host
         * path's (under #ifndef __CUDA_ARCH__), so only the idioms change */
        size_t head = e;
        while (head > 0 && L[head - 1] != ';' && L[head - 1] != '{' && L[head - 1] != '}') --head;
        bool host = false;
        for (size_t y = head; y < ob && !host; ++y)
            host = L.compare(y, 8, "__host__") == 0 && (y == 0 || !ident_char(L[y - 1])) &&
                   !ident_char(L[y + 8]);
        for (size_t x = ob + 1; x < cb;) {
            size_t k = skip_comment_or_literal(x);
            if (k != x) { x = k; continue; }
            if (!ident_start(L[x]) || ident_char(L[x - 1])) { ++x; continue; }
            const std::string w = word_at(x);
            if ((w == "asm" || w == "__asm__" || w == "__asm") && !asm_done.count(x)) {
                asm_done.insert(x);
                asm_statement(x, x + w.size(), host);
            }
            x += w.size();
        }
    }

    /* The shown form of an instruction: printable, no quotes or backslashes. */
    static std::string shown(const std::string &t)
    {
        std::string out;
        for (char c : t) {
            if (c == '"' || c == '\\') continue;
            if (std::isspace((unsigned char)c)) c = ' ';
            if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
            if (c == '%' && !out.empty() && out.back() == '%') continue; /* %% is % */
            if (std::isprint((unsigned char)c)) out += c;
        }
        while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
        return out.size() > 72 ? out.substr(0, 69) + "..." : out;
    }

    /* `asm [volatile] ( "template" : outputs : inputs : clobbers )` at [a, w). */
    void asm_statement(size_t a, size_t w, bool host)
    {
        const size_t n = L.size();
        size_t ls = a; /* a statement inside a #define is left alone */
        while (ls > 0 && L[ls - 1] != '\n') --ls;
        if (L[skip_space(ls)] == '#') return;
        size_t j = skip_space(w);
        for (std::string q = word_at(j); q == "volatile" || q == "__volatile__" ||
                                         q == "__volatile" || q == "inline" || q == "goto";
             q = word_at(j))
            j = skip_space(j + q.size());
        if (j >= n || L[j] != '(') return;
        const size_t close = match_close(j);
        if (close >= n) return;
        /* the template: adjacent string literals */
        std::string tmpl;
        size_t x = skip_space(j + 1);
        bool literal = false;
        while (x < close && L[x] == '"') {
            const size_t end = skip_comment_or_literal(x);
            for (size_t y = x + 1; y + 1 < end; ++y) {
                if (L[y] == '\\' && y + 2 < end) {
                    ++y;
                    tmpl += L[y] == 'n' ? '\n' : L[y] == 't' ? '\t' : L[y];
                } else {
                    tmpl += L[y];
                }
            }
            literal = true;
            x = skip_space(end);
        }
        /* the operand sections, split at top-level colons */
        std::vector<std::vector<std::string>> sect; /* outputs, inputs: their expressions */
        bool parsed = literal;
        for (size_t s = x; parsed && s < close && sect.size() < 2;) {
            if (L[s] != ':') { parsed = false; break; }
            size_t t = s + 1;
            int depth = 0;
            while (t < close) {
                size_t k = skip_comment_or_literal(t);
                if (k != t) { t = k; continue; }
                if (L[t] == '(' || L[t] == '[') ++depth;
                else if (L[t] == ')' || L[t] == ']') --depth;
                else if (L[t] == ':' && depth == 0) break;
                ++t;
            }
            std::vector<std::string> exprs;
            for (auto &op : split_list(s, t, false)) {
                size_t c = skip_space(op.first);
                if (c >= op.second || L[c] != '"') { parsed = false; break; }
                c = skip_space(skip_comment_or_literal(c));
                if (c >= op.second || L[c] != '(') { parsed = false; break; }
                const size_t pc = match_close(c);
                exprs.push_back("(" + trimmed(c + 1, pc) + ")");
            }
            sect.push_back(exprs);
            s = t;
        }
        while (sect.size() < 2) sect.emplace_back();
        std::string call;
        if (parsed) call = ptx_rewrite(tmpl, sect[0], sect[1]);
        if (call.empty() && host) return;
        if (call.empty()) {
            const std::string what = literal ? shown(tmpl) : shown(trimmed(j + 1, close));
            call = "static_assert(false, \"cudaemu: inline PTX '" + what +
                   "' is not emulated\")";
        }
        add_edit(a, close + 1, call, false);
    }

    /* One PTX instruction, its output and input expressions: the emulator
     * call that does the same, or "" when there is none. */
    static std::string ptx_rewrite(const std::string &tmpl, const std::vector<std::string> &out,
                                   const std::vector<std::string> &in)
    {
        std::vector<std::string> insns; /* instructions, spaces collapsed */
        std::string cur;
        for (char c : tmpl + ";") {
            if (c == ';' || c == '\n') {
                std::string t;
                for (char d : cur) {
                    if (std::isspace((unsigned char)d)) d = ' ';
                    if (d == ' ' && (t.empty() || t.back() == ' ')) continue;
                    t += d;
                }
                while (!t.empty() && t.back() == ' ') t.pop_back();
                if (!t.empty()) insns.push_back(t);
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (insns.empty()) return "((void)0)"; /* asm("" ::: "memory"): a compiler barrier */
        if (insns.size() != 1) return "";
        const std::string &s = insns[0];
        const size_t sp = s.find(' ');
        const std::string op = s.substr(0, sp);
        std::vector<std::string> args;
        if (sp != std::string::npos) {
            std::string a;
            for (char c : s.substr(sp + 1) + ",") {
                if (c == ',') {
                    while (!a.empty() && a.back() == ' ') a.pop_back();
                    args.push_back(a);
                    a.clear();
                } else if (c != ' ' || !a.empty()) {
                    a += c;
                }
            }
        }
        /* %N: the N-th operand, outputs first */
        const auto operand = [&](const std::string &t) -> std::string {
            if (t.size() < 2 || t[0] != '%' || !std::isdigit((unsigned char)t[1])) return "";
            const size_t k = std::strtoul(t.c_str() + 1, nullptr, 10);
            return k < out.size() ? out[k] : k - out.size() < in.size() ? in[k - out.size()] : "";
        };
        static const char *const regs[] = {
            "laneid", "warpid", "nwarpid", "smid", "nsmid", "clock", "clock64", "globaltimer",
            "lanemask_lt", "lanemask_le", "lanemask_eq", "lanemask_ge", "lanemask_gt"};
        /* the register as `%%name` or, as nvcc also takes it, `%name` */
        const size_t at = args.size() == 2 && args[1].compare(0, 2, "%%") == 0 ? 2 : 1;
        if (op.compare(0, 4, "mov.") == 0 && args.size() == 2 && out.size() == 1 && in.empty() &&
            args[0] == "%0" && args[1].size() > at && std::isalpha((unsigned char)args[1][at])) {
            for (const char *r : regs)
                if (args[1].compare(at, std::string::npos, r) == 0)
                    return out[0] + " = ::cudaemu::ptx::" + r + "()";
            return "";
        }
        if (op == "nanosleep.u32" && args.size() == 1) {
            std::string v = operand(args[0]);
            if (v.empty() && !args[0].empty() &&
                args[0].find_first_not_of("0123456789") == std::string::npos)
                v = args[0];
            return v.empty() ? "" : "::cudaemu::ptx::nanosleep(" + v + ")";
        }
        if ((op == "bar.sync" || op == "barrier.sync" || op == "barrier.sync.aligned") &&
            args.size() == 1 && args[0] == "0")
            return "__syncthreads()";
        if (args.empty() && (op == "membar.cta" || op == "fence.cta" || op == "fence.acq_rel.cta" ||
                             op == "fence.sc.cta"))
            return "__threadfence_block()";
        if (args.empty() && (op == "membar.gl" || op == "fence.gpu" || op == "fence.acq_rel.gpu" ||
                             op == "fence.sc.gpu"))
            return "__threadfence()";
        if (args.empty() && (op == "membar.sys" || op == "fence.sys" || op == "fence.acq_rel.sys" ||
                             op == "fence.sc.sys"))
            return "__threadfence_system()";
        return "";
    }

    void scan_includes() { scan(false); }

    /* Finds the launches and extern __shared__ declarations (edits), or only
     * the #include lines. */
    void scan(bool edit_pass = true)
    {
        const size_t n = L.size();
        bool line_start = true, directive = false;
        size_t i = 0;
        while (i < n) {
            char c = L[i];
            if (c == '\n') {
                line_start = true;
                directive = false;
                ++i;
                continue;
            }
            if (std::isspace((unsigned char)c)) { ++i; continue; }
            const size_t k = skip_comment_or_literal(i);
            if (k != i && c == '/') { /* a comment is one space: its newlines vanish */
                i = k;
                continue;
            }
            if (line_start && c == '#') {
                directive = true;
                line_start = false;
                if (edit_pass) pragma_directive(i);
                i = edit_pass ? i + 1 : include_directive(i);
                continue;
            }
            line_start = false;
            if (k != i) { /* a literal */
                i = k;
                continue;
            }
            if (ident_start(c)) {
                size_t e = i;
                while (e < n && ident_char(L[e])) ++e;
                if (edit_pass && L.compare(i, e - i, "extern") == 0) extern_shared(i, e, directive);
                if (edit_pass && L.compare(i, e - i, "__shared__") == 0) static_shared(i, e, directive);
                if (edit_pass && L.compare(i, e - i, "_Pragma") == 0) unroll_operator(i, e, directive);
                if (edit_pass && (L.compare(i, e - i, "cudaLaunchCooperativeKernel") == 0 ||
                                  L.compare(i, e - i, "cudaLaunchKernel") == 0))
                    untyped_launch(e, directive);
                if (edit_pass && e - i == 4 && L.compare(i, 4, "func") == 0)
                    kernel_node_func(i, e, directive);
                if (edit_pass && !directive && L.compare(i, e - i, "__global__") == 0)
                    kernel_definition(i, e);
                if (edit_pass && !directive && (L.compare(i, e - i, "__global__") == 0 ||
                                                L.compare(i, e - i, "__device__") == 0))
                    device_body(e);
                if (edit_pass && ((e - i == 6 && L.compare(i, 6, "malloc") == 0) ||
                                  (e - i == 4 && L.compare(i, 4, "free") == 0)))
                    device_heap_call(i, e, directive);
                i = e;
                continue;
            }
            if (std::isdigit((unsigned char)c)) { /* pp-number, may hold ' separators */
                while (i < n && (ident_char(L[i]) || L[i] == '.' || L[i] == '\'' ||
                                 ((L[i] == '+' || L[i] == '-') &&
                                  (L[i - 1] == 'e' || L[i - 1] == 'E' || L[i - 1] == 'p' ||
                                   L[i - 1] == 'P'))))
                    ++i;
                continue;
            }
            if (edit_pass && L.compare(i, 2, "<<") == 0) {
                /* `<<<`, or `<< <` (C++03 code kept `>>` apart): `<` cannot
                 * start an operand of `<<`, so this is always a launch */
                size_t k = i + 2;
                while (k < n && (L[k] == ' ' || L[k] == '\t')) ++k;
                size_t w = i; /* `operator<< <T>`: a template's specialization */
                while (w > 0 && std::isspace((unsigned char)L[w - 1])) --w;
                const bool op = w >= 8 && L.compare(w - 8, 8, "operator") == 0 &&
                                (w == 8 || !ident_char(L[w - 9]));
                if (!op && k < n && L[k] == '<' && (k == i + 2 || L.compare(k, 2, "<<") != 0)) {
                    chevron(i, k + 1 - i, directive);
                    i = k + 1;
                    continue;
                }
                i += 2;
                continue;
            }
            ++i;
        }
        if (edit_pass && own_heap_names) /* its calls may mean its own: leave them all */
            edits.erase(std::remove_if(edits.begin(), edits.end(),
                                       [](const Edit &e) {
                                           return e.text.compare(0, 26, "::cudaemu::detail::device_") == 0;
                                       }),
                        edits.end());
    }

    /* The translated text; the root .cu first gets cuda_runtime.h, as nvcc. */
    std::string output(bool root) const
    {
        /* nvcc's own macros (cuda_runtime.h adds __CUDACC_VER_*__); never
         * __CUDA_ARCH__: this is the host pass of every kernel */
        std::string out = root ? "#define __NVCC__ 1\n#define __CUDACC__ 1\n"
                                 "#include <cuda_runtime.h>\n#line 1 \""
                               : "#line 1 \"";
        for (char c : path) {
            if (c == '\\' || c == '"') out += '\\';
            out += c;
        }
        out += "\"\n";
        std::vector<Edit> es = edits;
        std::stable_sort(es.begin(), es.end(),
                         [](const Edit &a, const Edit &b) { return a.begin < b.begin; });
        size_t at = 0;
        for (const Edit &e : es) {
            out.append(orig, at, e.begin - at);
            out += e.text;
            for (size_t x = e.begin; x < e.end; ++x)
                if (orig[x] == '\n') out += e.directive ? " \\\n" : "\n";
            at = e.end;
        }
        out.append(orig, at, std::string::npos);
        return out;
    }
};

bool is_file(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string &p)
{
    size_t s = p.rfind('/');
    return s == std::string::npos ? "." : (s == 0 ? "/" : p.substr(0, s));
}

std::string quoted(const std::string &p)
{
    std::string q = "\"";
    for (char c : p) {
        if (c == '\\' || c == '"') q += '\\';
        q += c;
    }
    return q + "\"";
}

/* The .cu and the project headers it reaches. */
struct Project {
    std::vector<std::string> incdirs; /* -I, in order */
    std::vector<std::unique_ptr<Translator>> units;
    std::map<std::string, int> by_path; /* real path -> unit */
    KernelTable kernels;

    /* Reads a file and, recursively, the headers it includes: its unit, or -1
     * when it cannot be read. */
    int load(const std::string &file)
    {
        char real[PATH_MAX];
        if (!realpath(file.c_str(), real)) return -1;
        auto found = by_path.find(real);
        if (found != by_path.end()) return found->second;
        std::ifstream in(file, std::ios::binary);
        if (!in) return -1;
        std::ostringstream ss;
        ss << in.rdbuf();
        const int u = (int)units.size();
        by_path[real] = u;
        units.emplace_back(new Translator);
        Translator &t = *units.back();
        t.path = units.size() == 1 ? file : std::string(real);
        t.orig = ss.str();
        t.splice();
        t.kernels = &kernels;
        t.scan_includes();
        for (size_t k = 0; k < units[u]->includes.size(); ++k) {
            Include inc = units[u]->includes[k];
            std::string hit;
            if (!inc.angle && !inc.name.empty() && inc.name[0] == '/') {
                if (is_file(inc.name)) hit = inc.name;
            } else {
                if (!inc.angle && is_file(dir_of(real) + "/" + inc.name))
                    hit = dir_of(real) + "/" + inc.name;
                for (size_t d = 0; hit.empty() && d < incdirs.size(); ++d)
                    if (is_file(incdirs[d] + "/" + inc.name)) hit = incdirs[d] + "/" + inc.name;
            }
            if (!hit.empty()) {
                int target = load(hit);
                units[u]->includes[k].target = target;
            }
        }
        return u;
    }
};

} // namespace

static int write_whole(const std::string &path, const std::string &text)
{
    const std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "cudaemu-translate: cannot write %s: %s\n", tmp.c_str(),
                     std::strerror(errno));
        return 1;
    }
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::fprintf(stderr, "cudaemu-translate: cannot write %s: %s\n", path.c_str(),
                     std::strerror(errno));
        std::remove(tmp.c_str());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Project pr;
    std::vector<std::string> files;
    for (int a = 1; a < argc; ++a) {
        std::string s = argv[a];
        if (s == "-I" && a + 1 < argc) pr.incdirs.push_back(argv[++a]);
        else if (s.compare(0, 2, "-I") == 0 && s.size() > 2) pr.incdirs.push_back(s.substr(2));
        else files.push_back(s);
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "usage: cudaemu-translate [-I DIR]... INPUT.cu OUTPUT.cpp\n");
        return 2;
    }
    if (!is_file(files[0]) || pr.load(files[0]) != 0) {
        std::fprintf(stderr, "cudaemu-translate: cannot read %s: %s\n", files[0].c_str(),
                     std::strerror(errno ? errno : ENOENT));
        return 2;
    }
    const size_t n = pr.units.size();
    for (auto &u : pr.units) u->collect_kernels(pr.kernels);
    std::set<std::string> host_named;
    for (auto &u : pr.units) {
        u->collect_host_named(host_named);
        u->host_named = &host_named;
    }
    bool failed = false;
    for (auto &u : pr.units) {
        u->scan();
        failed = failed || u->failed;
    }
    if (failed) return 1;
    /* a header is copied when it has edits or includes a copied header */
    std::vector<bool> copy(n, false);
    for (size_t u = 1; u < n; ++u) copy[u] = !pr.units[u]->edits.empty();
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t u = 1; u < n; ++u)
            for (const Include &inc : pr.units[u]->includes)
                if (!copy[u] && inc.target > 0 && copy[inc.target]) copy[u] = changed = true;
    }
    const std::string outdir = files[1] + ".d";
    std::vector<std::string> copy_path(n);
    for (size_t u = 1; u < n; ++u) {
        if (!copy[u]) continue;
        if (mkdir(outdir.c_str(), 0777) != 0 && errno != EEXIST) {
            std::fprintf(stderr, "cudaemu-translate: cannot create %s: %s\n", outdir.c_str(),
                         std::strerror(errno));
            return 1;
        }
        char real[PATH_MAX];
        if (!realpath(outdir.c_str(), real)) return 1;
        const std::string &p = pr.units[u]->path;
        copy_path[u] = std::string(real) + "/" + std::to_string(u) + "-" + p.substr(p.rfind('/') + 1);
    }
    for (size_t u = 0; u < n; ++u) {
        if (u > 0 && !copy[u]) continue;
        Translator &t = *pr.units[u];
        for (const Include &inc : t.includes) {
            if (inc.target < 0) continue;
            if (copy[inc.target])
                t.edits.push_back(Edit{t.pos[inc.b], t.pos[inc.e], quoted(copy_path[inc.target]), false});
            else if (u > 0) /* a copy lives elsewhere: name the original */
                t.edits.push_back(Edit{t.pos[inc.b], t.pos[inc.e], quoted(pr.units[inc.target]->path), false});
        }
        if (write_whole(u == 0 ? files[1] : copy_path[u], t.output(u == 0))) return 1;
    }
    return 0;
}
