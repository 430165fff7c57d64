/* emu/src/misaligned.cpp - misaligned loads and stores in kernels fail the
 * launch, as on a GPU (cudaErrorMisalignedAddress).
 *
 * Kernel code is compiled with -fsanitize=alignment (emu/cmake and nvcc-emu
 * add it to every translated .cu; the ASan build has it within
 * -fsanitize=undefined): before each load, store, member access or
 * reference binding through a pointer the compiler checks the address
 * against the type's alignment (a float4 or int4 16 bytes, a float2 or
 * double 8, a float 4) and, when it is not aligned, calls the UBSan handler
 * below instead of touching memory.  Inside a kernel the handler fails the
 * launch with the sticky cudaErrorMisalignedAddress and one line naming the
 * kernel, block, thread, the access, its address and the source line.  Any
 * other report (outside a kernel, or another kind of type mismatch such as
 * a null pointer) goes to the sanitizer runtime when the program has one
 * (ASan builds), else it is printed (the plain build checks alignment only).
 * The program's definitions take precedence over libubsan's.
 */
#include "internal.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace {

/* UBSan's data layout (compiler-rt ubsan_handlers.h, GCC and Clang alike) */
struct SourceLocation {
    const char *file;
    uint32_t line, column;
};
struct TypeDescriptor {
    uint16_t kind, info;
    char name[1];
};
struct TypeMismatchData {
    SourceLocation loc;
    const TypeDescriptor *type;
    unsigned char log_alignment;
    unsigned char check_kind;
};

const char *access_kind(unsigned char k)
{
    static const char *kinds[] = {"load of", "store to", "reference binding to",
                                  "member access within", "member call on",
                                  "constructor call on", "downcast of", "downcast of",
                                  "upcast of", "cast to virtual base of",
                                  "_Nonnull binding to", "dynamic operation on"};
    return k < sizeof kinds / sizeof kinds[0] ? kinds[k] : "access to";
}

using Handler = void (*)(TypeMismatchData *, uintptr_t);

void mismatch(TypeMismatchData *d, uintptr_t p, const char *next_name, bool abort_after)
{
    const uintptr_t align = uintptr_t(1) << d->log_alignment;
    if (p && (p & (align - 1)) && cudaemu::in_kernel_code())
        cudaemu::kernel_fault_code(cudaErrorMisalignedAddress,
                                   "misaligned address: %s %s at 0x%llx, which needs %llu-byte "
                                   "alignment (%s:%u:%u; on a GPU: cudaErrorMisalignedAddress)",
                                   access_kind(d->check_kind), d->type ? d->type->name : "?",
                                   (unsigned long long)p, (unsigned long long)align,
                                   d->loc.file ? d->loc.file : "?", d->loc.line, d->loc.column);
    /* not a kernel's misaligned access: the sanitizer runtime's, if any */
    static Handler next = reinterpret_cast<Handler>(dlsym(RTLD_NEXT, next_name));
    if (next) {
        next(d, p);
        return;
    }
    std::fprintf(stderr, "%s:%u:%u: runtime error: %s %s address 0x%llx for type %s, which "
                 "requires %llu byte alignment\n", d->loc.file ? d->loc.file : "?",
                 d->loc.line, d->loc.column, access_kind(d->check_kind),
                 p ? "misaligned" : "null pointer", (unsigned long long)p,
                 d->type ? d->type->name : "?", (unsigned long long)align);
    if (abort_after) std::abort();
}

} // namespace

extern "C" {
void __ubsan_handle_type_mismatch_v1(TypeMismatchData *d, uintptr_t p)
{
    mismatch(d, p, "__ubsan_handle_type_mismatch_v1", false);
}
void __ubsan_handle_type_mismatch_v1_abort(TypeMismatchData *d, uintptr_t p)
{
    mismatch(d, p, "__ubsan_handle_type_mismatch_v1_abort", true);
}
}
