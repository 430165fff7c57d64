/* emu/src/internal.h - shared internals of the CUDA host emulator (not installed).
 *
 * One process-wide State guarded by a recursive mutex: the emulated devices,
 * the allocation table, the stream and event registries.  Streams are lazy
 * FIFO queues of Ops that run only when something waits on them
 * (streams.cpp); kernels run block by block on fibers (scheduler.cpp,
 * fiber.cpp).  Each API entry point takes the lock, so host threads may call
 * the emulator concurrently while kernels themselves run on one host thread.
 */
#ifndef CUDAEMU_INTERNAL_H
#define CUDAEMU_INTERNAL_H

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define CUDAEMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUDAEMU_ASAN 1
#endif
#endif

namespace cudaemu {

/* ---- configuration from the environment (state.cpp) ---- */
enum class Order { Fwd, Rev, Shuffle };
struct Config {
    int ndev = 1;                 /* devices visible: CUDAEMU_DEVICES narrowed by CUDA_VISIBLE_DEVICES */
    std::vector<int> physical;    /* visible ordinal -> emulated ordinal (uuid, PCI bus) */
    Order order = Order::Fwd;     /* CUDAEMU_ORDER=fwd|rev|shuffle */
    uint64_t seed = 1;            /* CUDAEMU_SEED */
    bool leaks = true;            /* CUDAEMU_LEAKS=0 silences the exit report */
    size_t stack_bytes = 256 << 10; /* CUDAEMU_STACK_KB */
    size_t mem_bytes = size_t(16) << 30; /* CUDAEMU_MEM_MB: totalGlobalMem */
    int progress_ms = 20;         /* CUDAEMU_PROGRESS_MS: 0 = purely lazy streams */
    int nccl_timeout_ms = 30000;  /* CUDAEMU_NCCL_TIMEOUT_MS: wait for another thread's rank */
    long nccl_fail = 0;           /* CUDAEMU_NCCL_FAIL=N: the Nth collective call fails (0: none) */
    int kernel_timeout_s = 300;   /* CUDAEMU_KERNEL_TIMEOUT_S: the kernel watchdog, 0 = off */
    bool pageable_late = false;   /* CUDAEMU_PAGEABLE_LATE=1: a pageable H2D cudaMemcpy lands later */
    bool interleave = false;      /* CUDAEMU_INTERLEAVE=1: blocks of a launch run interleaved */
    int fresh = -1;               /* CUDAEMU_FRESH=zero|nan: the byte of fresh memory; -1: by the build */
};
const Config &config();
std::mt19937_64 &rng();
/* Fills v with 0..n-1 in the configured thread order. */
void make_order(std::vector<uint32_t> &v, uint32_t n);
void reshuffle(std::vector<uint32_t> &v);

/* ---- handles ---- */
struct Launch;
struct Op {
    enum Kind { Work, Record, Wait } kind = Work;
    std::function<cudaError_t()> work;     /* Work: kernel, copy, memset, cuBLAS, host fn */
    const void *kernel = nullptr;          /* Work: the kernel it launches (graph updates) */
    bool after_failure = false;            /* Work that runs after a sticky error too */
    std::shared_ptr<CUevent_st> event;     /* Record */
    uint64_t gen = 0;                      /* Record: which recording of the event */
    std::shared_ptr<CUstream_st> other;    /* Wait: stream whose ops must be done */
    uint64_t upto = 0;                     /* Wait: ... up to this count */
    /* Optional, asked by drain() while the op is at the head of its stream:
     * true when it may run now (it may wait for other host threads, the API
     * lock released), false to leave it queued (the drain stops there).
     * NCCL collectives use it to meet their other ranks (nccl.cpp). */
    std::function<bool()> gate;
    /* Work that is a kernel launch (launch.cpp): under CUDAEMU_INTERLEAVE=1
     * the drain may run it with kernels of other streams (run_launches). */
    std::shared_ptr<const Launch> launch;
};

} // namespace cudaemu

struct CUstream_st {
    int device = 0;
    unsigned flags = 0;
    int priority = 0;
    bool legacy = false;
    std::deque<cudaemu::Op> q;
    uint64_t issued = 0, done = 0;  /* ops enqueued / ops executed so far */
    uint64_t started = 0;           /* ops taken off the queue (> done: one is executing) */
    std::thread::id runner;         /* the host thread executing op number done + 1 */
    bool queried = false;           /* a query saw pending work since the last enqueue */
    std::map<int, cudaLaunchAttributeValue> attrs; /* cudaStreamSetAttribute's hints (stream_attrs.cpp) */
};

struct CUevent_st {
    int device = 0;
    unsigned flags = 0;
    bool recorded = false;
    std::shared_ptr<CUstream_st> stream; /* stream of the latest record */
    uint64_t upto = 0;                   /* its position there */
    uint64_t gen = 0;                    /* number of records so far */
    bool done = false;                   /* latest record executed */
    bool queried = false;
    double t_ms = 0;                     /* host time the latest record executed */
};

namespace cudaemu {

struct ManagedHints; /* managed_hints.cpp: advice and prefetches, page by page */

struct Alloc {
    /* Symbol: a __device__ variable whose address cudaGetSymbolAddress gave out */
    enum Kind { Device, HostAlloc, HostRegistered, Managed, Symbol } kind = Device;
    uintptr_t base = 0;
    size_t size = 0;
    char *raw = nullptr;          /* what malloc returned: base minus the front guard */
    size_t back = 0;              /* bytes of back guard after base + size (0: none) */
    size_t back_near = 0;         /* ... of which checked after every block of a kernel */
    char *map = nullptr;          /* guard_pages.cpp: its mapping (null: heap, raw) */
    size_t map_size = 0;
    int device = 0;
    const void *caller = nullptr; /* return address of the allocating call */
    bool array = false;           /* the block of a CUDA array (arrays.cpp) */
    CUmemPoolHandle_st *pool = nullptr; /* cudaMallocAsync: its pool (mempool.cpp) */
    bool free_queued = false;     /* cudaFreeAsync queued: a second free is refused */
    /* initcheck (sanitize.cpp): 1 for every byte written since allocation; null: not tracked */
    std::shared_ptr<std::vector<unsigned char>> written;
    unsigned host_flags = 0;      /* cudaHostAlloc's flags (cudaHostGetFlags) */
    bool graph_owned = false;     /* a graph's allocation node made it (mempool.cpp) */
    std::shared_ptr<ManagedHints> hints; /* Managed: made by the first advice or prefetch */
};

struct FuncInfo {
    int max_dyn_smem = -1; /* cudaFuncAttributeMaxDynamicSharedMemorySize; -1: 48 KiB - static */
    int carveout = -1;
};

/* What the translator registered of a kernel (kernel_info.cpp). */
struct KernelStatic {
    long long max_threads = 0;  /* __launch_bounds__'s first argument; 0: none */
    long long min_blocks = 0;
    long long max_cluster = 0;
    size_t static_smem = 0;     /* the sum of the sizes below */
    std::vector<std::pair<void *, size_t>> shared; /* its static __shared__ variables */
};
/* Null when the kernel registered nothing (no bounds, no static shared memory). */
const KernelStatic *kernel_static(const void *f);
size_t static_smem_bytes(const void *f);

struct Device {
    int id = 0;
    cudaError_t sticky = cudaSuccess;
    size_t used = 0;
    std::shared_ptr<CUstream_st> legacy, per_thread;
    std::vector<std::shared_ptr<CUstream_st>> streams; /* user streams, creation order */
    unsigned flags = 0;  /* cudaSetDeviceFlags (device_ext.cpp) */
    int cache_config = 0; /* cudaDeviceSetCacheConfig (runtime_more.cpp) */
    int bank_config = 0;  /* cudaDeviceSetSharedMemConfig */
    uint64_t peers = 0;  /* bit p: peer access to device p enabled (device_ext.cpp) */
};

struct State {
    std::recursive_mutex mu;
    std::vector<Device> devs;
    std::map<uintptr_t, Alloc> allocs;
    std::map<CUstream_st *, std::shared_ptr<CUstream_st>> stream_reg;
    std::map<CUevent_st *, std::shared_ptr<CUevent_st>> event_reg;
    std::map<const void *, FuncInfo> funcs;
};

State &st(); /* created on first use, never destroyed */

/* ---- the API lock and stream progress (progress.cpp) ---- */
/* Notes that a host thread is in the runtime now (the progress thread waits
 * for CUDAEMU_PROGRESS_MS without any such call before it runs queued work). */
void note_api_call();
/* Queued work exists: wakes the progress thread (started on first use). */
void progress_kick();
/* How many times this host thread holds the API lock (api_wait releases them all). */
inline thread_local int t_api_depth = 0;
/* A host thread's first API call counts it as a live host thread (live_host_threads). */
inline thread_local bool t_host_thread = false;
void note_host_thread();
/* Every API entry point holds this while it looks at or changes the state. */
struct ApiLock {
    std::lock_guard<std::recursive_mutex> guard;
    ApiLock() : guard(st().mu)
    {
        ++t_api_depth;
        if (!t_host_thread) note_host_thread();
        note_api_call();
    }
    ~ApiLock()
    {
        --t_api_depth;
        note_api_call();
    }
    ApiLock(const ApiLock &) = delete;
    ApiLock &operator=(const ApiLock &) = delete;
};
#define CUDAEMU_LOCK ::cudaemu::ApiLock cudaemu_lock_
/* With the API lock held (through ApiLock): releases it, waits until pred()
 * (checked with the lock held) or until now_ms() reaches deadline_ms, takes
 * it back; true when pred() holds.  Other host threads run API calls
 * meanwhile; api_notify() (lock held) wakes the waiters after a change.  The
 * progress thread never waits (false at once unless pred() holds). */
bool api_wait(const std::function<bool()> &pred, double deadline_ms);
void api_notify();
bool on_progress_thread();
/* Host threads alive now that have made an API call (this one included). */
int live_host_threads();

/* ---- errors (errors.cpp, state.cpp) ---- */
cudaError_t ret(cudaError_t e);     /* records e as the thread's last error if non-zero */
int cur_dev();                      /* this host thread's current device */
void set_cur_dev(int d);
Device &dev(int d);
/* cudaErrorNoDevice without devices, else the current device's sticky error. */
cudaError_t usable();
void set_sticky(int device, cudaError_t e);
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Launch-attribute hints of a stream or a graph kernel node (stream_attrs.cpp):
 * set_hint checks an access policy window as CUDA does (cudaErrorInvalidValue)
 * and keeps the value; get_hint returns it, or zeros and false when unset. */
cudaError_t set_hint(std::map<int, cudaLaunchAttributeValue> &attrs, int attr,
                     const cudaLaunchAttributeValue &value, int device);
bool get_hint(const std::map<int, cudaLaunchAttributeValue> &attrs, int attr,
              cudaLaunchAttributeValue *out);
double now_ms();

/* ---- device limits (device.cpp) ---- */
constexpr int kMaxThreads = 1024;
constexpr int kSmemPerBlock = 48 * 1024;
constexpr int kSmemOptin = 227 * 1024;
constexpr int kSmemPerSM = 228 * 1024;
constexpr int kSmCount = 132;
/* cudaDevAttrClockRate.  Device clock() and clock64() are the host's clock()
 * (process CPU time, CLOCKS_PER_SEC = 1e6 ticks per second), so the device
 * reports 1 MHz: a kernel spinning clockRate * ms ticks spins ms milliseconds. */
constexpr int kClockKHz = 1000;
/* the dynamic shared memory buffer: the opt-in maximum and a guard zone */
constexpr size_t kDynSmemBytes = size_t(kSmemOptin) + 256;
const FuncInfo &func_info(const void *f);
/* The kernel's limit of dynamic shared memory per launch: its
 * cudaFuncAttributeMaxDynamicSharedMemorySize, by default 48 KiB less its
 * static shared memory (as CUDA). */
size_t max_dyn_smem(const void *f);
/* device_ext.cpp: the attributes cudaDeviceGetAttribute's own switch leaves
 * out (false: not an attribute of CUDA 13.0's enum, or a reserved one). */
bool device_attribute_ext(cudaDeviceAttr attr, const cudaDeviceProp &p, int *v);
/* device_ext.cpp: forgets device d's peer mappings (cudaDeviceReset). */
void reset_peers(int d);
/* arrays.cpp: the texture and surface limits of the emulated device. */
void texture_limits(cudaDeviceProp &p);
/* arrays.cpp: device d's arrays, texture and surface objects stop working
 * (cudaDeviceReset; their memory goes with free_device_memory). */
void forget_arrays(int d);
/* texture.cpp: texture objects over [base, base+size) stop working (the
 * block is being freed): a later fetch fails the launch, saying so. */
void objects_lose_memory(uintptr_t base, size_t size, const char *why);

/* ---- memory (memory.cpp) ---- */
const Alloc *find_alloc(const void *p);
/* Checks [p, p+n) against the allocation table: *a is its allocation or null
 * for unknown (pageable) memory; false when it overruns an allocation. */
bool span_ok(const void *p, size_t n, const Alloc **a);
void device_memory_access(bool open); /* ASan: unpoison (open) / poison device memory */
/* A fresh block of size bytes of device d (a guarded mapping, or heap memory
 * under ASan), 0xFF bytes, entered in the table (not counted in
 * Device::used: the caller accounts for it); the address in *out. */
cudaError_t new_device_block(size_t size, Alloc::Kind kind, int d, const void *caller,
                             CUmemPoolHandle_st *pool, void **out);
/* ASan: poisons (on) or unpoisons [p, p+n) */
void poison_range(const void *p, size_t n, bool on);
/* mempool.cpp: the bytes of a or block leaving the table go back to its
 * pool (still reserved there) or to the device (Device::used). */
void account_release(const Alloc &a);
/* mempool.cpp: after a host synchronize with device d: pools keep at most
 * their release threshold of unused memory. */
void pools_after_sync(int d);
/* mempool.cpp: cudaDeviceReset: device d's pools are forgotten (their blocks
 * go with free_device_memory), its limits back to their defaults. */
void reset_pools(int d);
/* mempool.cpp: when addr lies in a block freed by cudaFreeAsync, describes the access. */
bool freed_block_fault(uintptr_t addr, char *buf, size_t cap);
/* mempool.cpp: device d's value of a cudaLimit (cudaDeviceSetLimit). */
size_t device_limit(int d, cudaLimit limit);
/* device_heap.cpp: a kernel of device d has called malloc (the heap's size
 * is fixed from then on); forget_device_heap frees d's blocks (cudaDeviceReset). */
bool device_heap_started(int d);
void forget_device_heap(int d);
/* The device of the kernel this host thread runs (launch.cpp sets it). */
inline thread_local int t_kernel_device = 0;
void free_device_memory(int d);
/* Guard zones (builds without ASan): canary bytes before and after every
 * cudaMalloc / cudaMallocManaged block.  damaged_guard() describes the first
 * damaged one of device d ("" when all are intact); repair_guards() rewrites
 * them all; guarded_blocks() counts the blocks of device d.  damaged_guard
 * looks at the front zone and the back zone's first back_near bytes, or
 * (full) at the whole back zone too. */
std::string damaged_guard(int d, bool full = false);
void repair_guards(int d);
size_t guarded_blocks(int d);
/* Canary pattern byte i of a guard zone (never 0x00 or 0xFF). */
inline unsigned char canary(size_t i)
{
    unsigned char c = (unsigned char)((i * 167u + 0x5bu) ^ 0xc3u);
    return c == 0 || c == 0xff ? 0x5a : c;
}
/* canary(0), canary(1), ... canary(kCanaryBytes - 1), to compare guards with memcmp. */
constexpr size_t kCanaryBytes = 16384;
/* The front guard zone of a device or managed block (0 under ASan, which
 * guards exact-size blocks itself). */
#ifdef CUDAEMU_ASAN
constexpr size_t kFrontGuard = 0;
#else
constexpr size_t kFrontGuard = 512;
#endif
/* guard_pages.cpp: maps a guarded block of size bytes between PROT_NONE pages
 * and fills a's raw, base, size, back, back_near, map (false: mmap failed);
 * release_block unmaps it (or frees a heap block); guard_page_fault: when
 * addr lies in the PROT_NONE page of a block, describes the access. */
bool map_guarded(Alloc &a, size_t size);
void release_block(const Alloc &a);
bool guard_page_fault(uintptr_t addr, char *buf, size_t cap);
const unsigned char *canary_bytes();
/* True when p[0..n) is canary(0..n): the guard zone is intact. */
inline bool canary_intact(const void *p, size_t n)
{
    return n <= kCanaryBytes && std::memcmp(p, canary_bytes(), n) == 0;
}
/* "file+0xOFFSET" of a code address, for messages (addr2line -e file OFFSET). */
std::string code_location(const void *addr);
/* The symbol (demangled, without its parameter list) of a function, from
 * the ELF symbol table of its object; "kernel at 0x..." when unknown. */
std::string function_name(const void *fn);

/* ---- streams (streams.cpp) ---- */
/* Resolves a handle (0, cudaStreamLegacy, cudaStreamPerThread or a created
 * stream); null with *err set when invalid. */
std::shared_ptr<CUstream_st> stream_of(cudaStream_t s, cudaError_t *err);
/* Queues op on s, or hands it to a graph (graph.cpp's capture_op): then the
 * error is that of an operation stream capture forbids. */
cudaError_t enqueue(CUstream_st *s, Op op);
cudaError_t enqueue_work(CUstream_st *s, std::function<cudaError_t()> fn);
/* Enqueues a copy or memset on s; waits for it when `wait`. */
cudaError_t submit(CUstream_st *s, std::function<cudaError_t()> fn, bool wait);
void drain(CUstream_st *s, uint64_t upto);
void drain_all(CUstream_st *s);

/* ---- graphs and stream capture (graph.cpp) ---- */
/* enqueue() offers every op here first: true when a graph took it (s is
 * capturing, or a graph node is being made) or *err refuses it. */
bool capture_op(CUstream_st *s, Op &op, cudaError_t *err);
/* Work queued on s now is recorded into a graph, not run: no staging, no waiting. */
bool capturing(const CUstream_st *s);
/* cudaStreamWaitEvent: true when capture handles the wait (*err: its result). */
bool capture_wait(const std::shared_ptr<CUstream_st> &s, CUevent_st *e, unsigned flags,
                  cudaError_t *err);
/* The errors of calls that stream capture forbids; each invalidates the
 * captures concerned. */
cudaError_t capture_check_stream_sync(CUstream_st *s); /* stream synchronize / query */
cudaError_t capture_check_event_sync(CUevent_st *e);   /* event synchronize / query */
cudaError_t capture_check_device_sync(int d);          /* cudaDeviceSynchronize */
cudaError_t capture_check_unsafe_call();               /* cudaMalloc & co., cudaFree */

/* ---- emulated libraries (cuBLAS, cuDNN) ---------------------------------- */

/* An operand of a library call: it must be device (or pinned) memory. */
struct LibOperand {
    const char *name;
    const void *p;
    size_t bytes;
};

/* Queues a library call's work fn on the stream of a handle (device, stream),
 * or, when an operand is not device memory, a fault that names it (the sticky
 * cudaErrorIllegalAddress a GPU would raise). With blocking, waits for it.
 * Returns false when the handle's stream is not a stream or stream capture
 * forbids the call; after a fault the device's sticky error says so. */
bool queue_library_call(int device, cudaStream_t stream, const char *fname,
                        std::initializer_list<LibOperand> ops, std::function<void()> fn,
                        bool blocking);
/* cublas.cpp: column-major C = alpha op(A) op(B) + beta C on the host, as
 * cublasSgemm computes it (rounding: 0 exact, 1 TF32, 2 bfloat16 inputs). */
void host_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc, int rounding);
void sync_device(int d);
void reset_streams(int d);

/* ---- kernels (scheduler.cpp, launch.cpp) ---- */
struct Launch {
    std::shared_ptr<detail::KernelCall> call;
    const void *func = nullptr;
    dim3 grid, block;
    size_t smem = 0;
    int device = 0;
    bool cooperative = false; /* every block resident: grid_group::sync() works */
};
cudaError_t run_kernel(const Launch &l);
/* device_runtime.cpp (dynamic parallelism): runs grid l at nesting depth
 * `depth` (0: launched by the host), then the child grids its threads
 * launched, each complete with its own, then its tail launches. */
cudaError_t run_grid(const Launch &l, int depth);
/* From launch() in a kernel fiber: records the checked child launch l on the
 * running grid (device stream `stream`); its error, also the CUDA thread's. */
cudaError_t device_launch(const Launch &l, cudaStream_t stream);
/* In a kernel fiber (true; false elsewhere, nothing done): device_ret keeps
 * a non-zero e as the CUDA thread's last error; device_last_error reads it
 * (take: and clears it, as cudaGetLastError); device_stream_create/destroy
 * are cudaStreamCreateWithFlags/cudaStreamDestroy of a device stream. */
bool device_ret(cudaError_t e);
bool device_last_error(bool take, cudaError_t *e);
bool device_stream_create(cudaStream_t *p, unsigned flags, cudaError_t *e);
bool device_stream_destroy(cudaStream_t h, cudaError_t *e);
/* scheduler.cpp: the running block's cp.async queues, owned by pipeline.cpp
 * (null until it makes them): each resident block of an interleaved launch
 * has its own, where blocks running one after another share one. */
std::shared_ptr<void> &block_pipeline_queues();
/* scheduler.cpp: warp w's (of 32) nvcuda::wmma staging buffer of per_warp
 * floats in the running block's model (wmma.cpp), likewise. */
float *block_wmma_stage(unsigned w, size_t per_warp);
/* launch.cpp: runs queued launches of one device, as their ops' work does:
 * one alone; several (not cooperative) interleaved, their blocks resident
 * together (CUDAEMU_INTERLEAVE=1); out[i]: launch i's error. */
void run_launches(const Launch *const *ls, size_t n, cudaError_t *out);
/* scheduler_interleave.h: several launches of one device interleaved; the
 * failing one's error in out (the others' cudaSuccess: the sticky error ends them). */
void run_interleaved_kernels(const Launch *const *ls, size_t n, cudaError_t *out);
/* scheduler_coop.h: a cooperative launch (launch.cpp has checked its size) */
cudaError_t run_cooperative_kernel(const Launch &l);
/* launch.cpp: the emulated occupancy, blocks of blockSize threads per SM */
int max_active_blocks(int blockSize, size_t dynamicSMemSize);
/* A device-side assert failed (the program's assert() lands here through
 * __assert_fail, device_assert.cpp): inside a kernel fiber of this host
 * thread, prints the message as a GPU does, fails the launch with the sticky
 * cudaErrorAssert and does not return; elsewhere returns false. */
bool kernel_assert_failed(const char *expr, const char *file, unsigned line, const char *func);
/* Device code met something a GPU would fault on (a texture fetch through a
 * destroyed object, ...): fails the launch with the sticky
 * cudaErrorLaunchFailure and this message, naming the CUDA thread; does not
 * return.  Outside a kernel it prints the message and aborts. */
[[noreturn]] void kernel_fault(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* kernel_fault with another sticky error (cudaErrorMisalignedAddress, ...). */
[[noreturn]] void kernel_fault_code(cudaError_t code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True while this host thread runs a CUDA thread's code (a kernel fiber). */
bool in_kernel_code();
/* The fault handler (fiber.cpp), for a fault at addr on this host thread:
 * when a kernel fiber runs here and addr lies in the PROT_NONE page of a
 * device block (guard_pages.cpp), fails the launch with the sticky
 * cudaErrorIllegalAddress and a line naming the thread and the block; does
 * not return then.  Else false. */
bool kernel_guard_fault(uintptr_t addr);

/* ---- the kernel watchdog (watchdog.cpp) ---- */
/* Around every kernel run (launch.cpp): the watchdog preempts CUDA threads
 * that spin, ends kernels past CUDAEMU_KERNEL_TIMEOUT_S and at process exit. */
void watchdog_begin(const void *func);
void watchdog_end();
/* The kernel running now changed (an interleaved batch switched launches). */
void watchdog_kernel(const void *func);
bool process_exiting(); /* exit has begun: queued kernels do not start */
/* Counts fiber switches and threads run (the scheduler): unchanged for a
 * time slice means one CUDA thread runs on and on. */
extern std::atomic<uint64_t> g_kernel_ticks;
inline void kernel_tick()
{
    g_kernel_ticks.store(g_kernel_ticks.load(std::memory_order_relaxed) + 1,
                         std::memory_order_relaxed);
}
enum class KernelStop { None, Slice, Timeout, Exit };
/* scheduler.cpp, from the watchdog's signal: when this host thread runs a
 * CUDA thread's own code now, Slice switches to the next thread of the block
 * (returns when this one is resumed); Timeout and Exit fail the launch
 * (cudaErrorLaunchTimeout / cudaErrorLaunchFailure, a line naming the
 * threads) and do not return.  Elsewhere it returns at once. */
void kernel_stop(KernelStop why);

/* ---- racecheck, initcheck and fresh memory (sanitize.cpp) ---- */
/* The byte fresh device and pinned memory is filled with: CUDAEMU_FRESH, else
 * 0x00 in programs built by nvcc-emu (as GPUs give in practice), else 0xFF (NaN). */
unsigned char fresh_byte();
bool initcheck_on();
/* initcheck: a's map of written bytes (all unwritten), or null when not tracked. */
std::shared_ptr<std::vector<unsigned char>> new_written_map(const Alloc &a);
/* initcheck: [p, p+n) written by a copy, memset or library call. */
void sanitize_written(const void *p, size_t n);
/* initcheck: a copy (`call`) reads [p, p+n): unwritten device bytes are reported. */
void sanitize_copy_read(const void *p, size_t n, const char *call);
/* Around every kernel run (launch.cpp); end returns e, or cudaErrorLaunchFailure
 * when bench's own build reported a hazard or an uninitialized read. */
void sanitize_launch_begin(const Launch &l);
cudaError_t sanitize_launch_end(cudaError_t e);
/* scheduler.cpp: a warp primitive over mask completed in warp warp_base / 32. */
void sanitize_warp_sync(uint32_t warp_base, unsigned mask);
/* True while this host thread runs a CUDA thread's own code (not a primitive). */
bool in_user_kernel_code();
/* memory.cpp: what a block is, for messages ("device memory (cudaMalloc)", ...). */
const char *alloc_what(const Alloc &a);

/* ---- fibers (fiber.cpp) ---- */
namespace fiber {
struct Fiber;
using Entry = void (*)(Fiber *);
Fiber *create(Entry entry, void *user);
void *user(Fiber *f);
void enter(Fiber *f); /* from the host stack into f */
void leave(Fiber *f); /* from f back to the host stack */
void switch_to(Fiber *from, Fiber *to); /* from fiber `from` (running) straight into `to` */
Fiber *running();     /* the fiber running now (null on the host stack) */
void prefetch(const Fiber *f); /* f's saved frames toward the cache (f switched out) */
void reset(Fiber *f); /* abandon whatever f was doing; it restarts at its entry */
/* Parking (cooperative launches): appends switched-out f's context and live
 * frames to out and returns the record's offset; f's stack may then run
 * another thread (after reset).  unpark puts a record taken from the same
 * fiber back, at the same addresses: f resumes where that thread left. */
size_t park(Fiber *f, std::vector<char> &out);
void unpark(Fiber *f, const char *rec);
void install_fault_handler();
} // namespace fiber

} // namespace cudaemu

#endif
