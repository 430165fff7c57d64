/* emu/tools/cudaemu_translate.cpp - the source step of the CUDA host emulator:
 * turns the two pieces of CUDA syntax g++ cannot parse into C++ that
 * emu/include understands.  Built first, run over every .cu of the emu
 * flavour (emu/cmake/cuda_flavours.cmake) and by emu/nvcc-emu.
 *
 *   cudaemu-translate INPUT.cu OUTPUT.cpp
 *
 *   kernel<<<grid, block[, smem[, stream]]>>>(args...)
 *     becomes  kernel | ::cudaemu::detail::chevron(grid, block, smem, stream)(args...)
 *     Only the `<<<` and `>>>` tokens are replaced, so the kernel expression
 *     (template kernels `k<T, 4>`, `(*fp)`, `table[i]`) and every argument stay
 *     where they were, nested parentheses and commas included; the operator|
 *     of cuda_runtime.h queues the launch with cudaLaunchKernelEx, which sets
 *     the last error as <<<>>> does (the expression is void).
 *   extern __shared__ [__align__(n)|alignas(n)] T name[];
 *     becomes  [[maybe_unused]] T *const name = static_cast<T *>(::cudaemu::detail::dyn_smem_base());
 *     valid in a function body and at namespace scope (the emulator's dynamic
 *     shared memory lives at one fixed address).
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
#include <sstream>
#include <string>
#include <vector>

namespace {

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
    bool failed = false;

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

    /* k<<<cfg>>>(args): i at "<<<". */
    void chevron(size_t i, bool directive)
    {
        const size_t n = L.size();
        int depth = 0;
        size_t j = i + 3;
        while (j < n) {
            size_t k = skip_comment_or_literal(j);
            if (k != j) { j = k; continue; }
            char c = L[j];
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if (c == ')' || c == ']' || c == '}') {
                if (--depth < 0) break;
            } else if (c == ';' && depth == 0) break;
            else if (depth == 0 && L.compare(j, 3, ">>>") == 0) {
                size_t a = j + 3;
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
                add_edit(i, i + 3, " | ::cudaemu::detail::chevron(", directive);
                add_edit(j, j + 3, ")", directive);
                return;
            }
            ++j;
        }
        error(i, "kernel launch: `<<<` without a matching `>>>`");
    }

    struct Tok { size_t b, e; };

    /* extern ... __shared__ ... name[]; with i at "extern", e its end. */
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
        /* declarator: name [ ] at the end */
        size_t m = toks.size();
        if (m < 4 || text(toks[m - 1]) != "]" || text(toks[m - 2]) != "[" ||
            !ident_start(L[toks[m - 3].b])) {
            error(i, "extern __shared__: expected `extern __shared__ T name[];` (one "
                     "unsized array)");
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
        add_edit(i, semi + 1,
                 "[[maybe_unused]] " + type + " *const " + name + " = static_cast<" + type +
                     " *>(::cudaemu::detail::dyn_smem_base());",
                 directive);
    }

    void scan()
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
            if (line_start && c == '#') directive = true;
            line_start = false;
            if (k != i) { /* a literal */
                i = k;
                continue;
            }
            if (ident_start(c)) {
                size_t e = i;
                while (e < n && ident_char(L[e])) ++e;
                if (L.compare(i, e - i, "extern") == 0) extern_shared(i, e, directive);
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
            if (L.compare(i, 3, "<<<") == 0) {
                chevron(i, directive);
                i += 3;
                continue;
            }
            ++i;
        }
    }

    std::string output() const
    {
        std::string out = "#line 1 \"";
        for (char c : path) {
            if (c == '\\' || c == '"') out += '\\';
            out += c;
        }
        out += "\"\n";
        std::vector<Edit> es = edits;
        std::sort(es.begin(), es.end(),
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

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: cudaemu-translate INPUT.cu OUTPUT.cpp\n");
        return 2;
    }
    Translator t;
    t.path = argv[1];
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cudaemu-translate: cannot read %s: %s\n", argv[1],
                     std::strerror(errno));
        return 2;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    t.orig = ss.str();
    t.splice();
    t.scan();
    if (t.failed) return 1;
    const std::string out = t.output();
    /* write whole: a temporary, then rename */
    const std::string tmp = std::string(argv[2]) + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "cudaemu-translate: cannot write %s: %s\n", tmp.c_str(),
                     std::strerror(errno));
        return 1;
    }
    bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), argv[2]) != 0) {
        std::fprintf(stderr, "cudaemu-translate: cannot write %s: %s\n", argv[2],
                     std::strerror(errno));
        std::remove(tmp.c_str());
        return 1;
    }
    return 0;
}
