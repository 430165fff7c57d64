/* emu/src/symbols.cpp - names for code addresses in messages: the kernel a
 * failure happened in (from the ELF symbol table of the object holding it,
 * which has static functions too, demangled) and "file+0xoffset" of an
 * allocating call.  Only used on error paths and at exit. */
#include "internal.h"

#include <cstdio>
#include <cstring>
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaemu {
namespace {

struct Object {
    uintptr_t addr = 0;
    std::string path;
    uintptr_t bias = 0;
    bool found = false;
};

int find_object(struct dl_phdr_info *info, size_t, void *data)
{
    Object *o = static_cast<Object *>(data);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
        if (o->addr >= lo && o->addr < lo + ph.p_memsz) {
            o->path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
            o->bias = info->dlpi_addr;
            o->found = true;
            return 1;
        }
    }
    return 0;
}

/* The name of the function symbol containing `value` in the ELF file. */
std::string elf_symbol(const std::string &path, uintptr_t value)
{
    std::string name;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return name;
    struct stat sb;
    void *map = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && size_t(sb.st_size) > sizeof(ElfW(Ehdr)))
        map = mmap(nullptr, size_t(sb.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return name;
    const size_t size = size_t(sb.st_size);
    const char *base = static_cast<const char *>(map);
    const ElfW(Ehdr) *eh = reinterpret_cast<const ElfW(Ehdr) *>(base);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_shoff &&
        eh->e_shoff + size_t(eh->e_shnum) * sizeof(ElfW(Shdr)) <= size) {
        const ElfW(Shdr) *sh = reinterpret_cast<const ElfW(Shdr) *>(base + eh->e_shoff);
        for (int pass = 0; pass < 2 && name.empty(); ++pass) {
            const unsigned want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
            for (unsigned i = 0; i < eh->e_shnum && name.empty(); ++i) {
                if (sh[i].sh_type != want || sh[i].sh_link >= eh->e_shnum) continue;
                const ElfW(Shdr) &strs = sh[sh[i].sh_link];
                if (sh[i].sh_offset + sh[i].sh_size > size ||
                    strs.sh_offset + strs.sh_size > size)
                    continue;
                const ElfW(Sym) *sym = reinterpret_cast<const ElfW(Sym) *>(base + sh[i].sh_offset);
                const size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
                for (size_t k = 0; k < n; ++k) {
                    if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || !sym[k].st_value) continue;
                    if (value < sym[k].st_value ||
                        value >= sym[k].st_value + (sym[k].st_size ? sym[k].st_size : 1))
                        continue;
                    if (sym[k].st_name < strs.sh_size)
                        name = std::string(base + strs.sh_offset + sym[k].st_name,
                                           strnlen(base + strs.sh_offset + sym[k].st_name,
                                                   strs.sh_size - sym[k].st_name));
                    break;
                }
            }
        }
    }
    munmap(map, size);
    return name;
}

} // namespace

std::string function_name(const void *fn)
{
    char fallback[64];
    std::snprintf(fallback, sizeof fallback, "kernel at %p", fn);
    Object o;
    o.addr = reinterpret_cast<uintptr_t>(fn);
    if (!fn) return fallback;
    dl_iterate_phdr(find_object, &o);
    if (!o.found) return fallback;
    std::string sym = elf_symbol(o.path, o.addr - o.bias);
    if (sym.empty()) return fallback;
    int status = 0;
    char *d = abi::__cxa_demangle(sym.c_str(), nullptr, nullptr, &status);
    if (status == 0 && d) {
        sym = d;
        std::free(d);
        /* "void k<true>(int, float*)" -> "k<true>": drop the parameter list
         * (the last top-level parenthesis) and the return type */
        int depth = 0;
        size_t open = std::string::npos;
        for (size_t i = sym.size(); i-- > 0;) {
            if (sym[i] == ')') ++depth;
            else if (sym[i] == '(' && --depth == 0) { open = i; break; }
        }
        if (open != std::string::npos) sym.resize(open);
        depth = 0;
        for (size_t i = 0; i < sym.size(); ++i) {
            if (sym[i] == '<' || sym[i] == '(') ++depth;
            else if (sym[i] == '>' || sym[i] == ')') --depth;
            else if (sym[i] == ' ' && depth == 0) {
                sym = sym.substr(i + 1);
                break;
            }
        }
    } else if (d) {
        std::free(d);
    }
    return sym;
}

std::string code_location(const void *addr)
{
    Dl_info info;
    std::memset(&info, 0, sizeof info);
    if (!addr || !dladdr(addr, &info) || !info.dli_fname) return std::string();
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s+0x%lx", info.dli_fname,
                  (unsigned long)(reinterpret_cast<uintptr_t>(addr) -
                                  reinterpret_cast<uintptr_t>(info.dli_fbase)));
    return buf;
}

} // namespace cudaemu
