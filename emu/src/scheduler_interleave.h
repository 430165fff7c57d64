/* emu/src/scheduler_interleave.h - interleaved launches (CUDAEMU_INTERLEAVE=1):
 * several blocks resident at once, of one grid or of kernels of different
 * streams, their threads preempted at random yield points, so that a race
 * between blocks (a non-atomic read-modify-write of global memory, a flag
 * read before another block set it) gives the wrong result it can give on a
 * GPU.  Included by scheduler.cpp inside namespace cudaemu (it uses the
 * scheduler's block model); not a header of its own.
 *
 * Up to kIlResident blocks are resident, each in a slot with its own fibers
 * (thread i of the slot's block on the slot's fiber i, from its start to its
 * return: no run-through) and its own copy of the block model (g_blk is
 * swapped with the slot's), which names its launch.  The blocks of a launch
 * enter the slots in the configured block order; with several launches (a
 * batch that streams.cpp's drain hands over: kernels at the heads of
 * different streams, their dependencies met) a free slot takes the next
 * block of a launch drawn at random among those with blocks left.  The
 * scheduler picks a resident block at random (seeded by CUDAEMU_SEED and the
 * batch's number: the same program and seed give the same interleaving) and
 * runs it until its threads have all returned or a yield point pauses it
 * (interleave_point: after 1 to kIlMaxRun yield points a thread is
 * preempted; one preemption in kIlBlockSwitch pauses the block, the others
 * go on to the next thread of the block).  Yield points are the
 * translator's, after every statement of a kernel body, and __threadfence();
 * the barriers and warp primitives switch threads as always.  Shared memory
 * (the launch's dynamic and the kernel's static) lives at fixed addresses: a
 * paused block's is saved and the resumed block's restored.  Guard zones of
 * device memory are checked once per batch (the message names the kernel,
 * or the batch's kernels, only); with several launches the guard after the
 * dynamic shared memory (each launch its own size) is written before each
 * slice a block runs and checked after it, naming kernel and block.  A
 * failing block fails its launch (the message names its kernel and block);
 * the other launches of the batch are abandoned with it, as a GPU context's
 * fault ends all its work.  Cooperative launches are not interleaved (their
 * blocks meet at grid barriers: run_cooperative_kernel).
 */

constexpr size_t kIlResident = 8;

namespace {
/* One launch of an interleaved batch, begun (begin_grid_launch). */
struct IlLaunch {
    const Launch *l = nullptr;
    uint32_t n = 0;
    uint64_t nblocks = 0, next = 0;   /* blocks; the next to enter a slot */
    std::string kname;
    const KernelStatic *ks = nullptr;
    Block proto;                      /* a fresh block's model */
    std::vector<uint32_t> base_order; /* its threads' order */
    std::vector<uint64_t> border;     /* its blocks' order */
    bool has_shared = false;
};
} // namespace

void run_interleaved_kernels(const Launch *const *ls, size_t nl, cudaError_t *out)
{
    Block &b = g_blk;
    for (size_t i = 0; i < nl; ++i) out[i] = cudaSuccess;
    std::vector<IlLaunch> ils(nl);
    char *smem = nullptr;
    size_t max_smem = 0;
    uint32_t nmax = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < nl; ++i) {
        IlLaunch &L = ils[i];
        const Launch &l = *ls[i];
        if (i) b.launch = nullptr; /* the previous one is begun: its model is in proto */
        const auto [sm, begun, n, nblocks, kname, ks] = begin_grid_launch(l);
        if (!sm) { /* nothing runs */
            if (i) end_launch(smem);
            for (size_t k = 0; k < nl; ++k) out[k] = begun;
            return;
        }
        smem = sm;
        L.l = &l;
        L.n = n;
        L.nblocks = nblocks;
        L.kname = kname;
        L.ks = ks;
        b.owned = true;
        b.interleaved = true;
        L.proto = b;
        /* each block its own cp.async queues and wmma staging buffers */
        L.proto.pipeline.reset();
        std::vector<float>().swap(L.proto.wmma_stage);
        make_order(L.base_order, n);
        L.border.resize(nblocks);
        for (uint64_t k = 0; k < nblocks; ++k)
            L.border[k] = config().order == Order::Rev ? nblocks - 1 - k : k;
        if (config().order == Order::Shuffle) std::shuffle(L.border.begin(), L.border.end(), rng());
        L.has_shared = l.smem || (ks && !ks->shared.empty());
        max_smem = std::max(max_smem, l.smem);
        nmax = std::max(nmax, n);
        total += nblocks;
    }
    std::string names = ils[0].kname; /* for the guard zones checked once */
    for (size_t i = 1; i < nl; ++i) names += " or " + ils[i].kname;
    if (guards_damaged_before(*ls[0], smem, names)) {
        end_launch(smem);
        out[0] = cudaErrorIllegalAddress;
        return;
    }
    static uint64_t launches = 0;
    g_il_state = config().seed * 0x2545f4914f6cdd1dull + ++launches;
    g_il_countdown = 1 + int(il_random() % kIlMaxRun);

    /* the fibers of each slot, kept across launches */
    static std::vector<std::vector<fiber::Fiber *>> pools(kIlResident);
    const size_t nslots = size_t(std::min<uint64_t>(kIlResident, total));
    for (size_t s = 0; s < nslots; ++s)
        while (pools[s].size() < nmax) pools[s].push_back(fiber::create(fiber_main, nullptr));

    struct Slot {
        Block blk;
        std::vector<uint32_t> order;
        std::vector<char> shared; /* a paused block's shared memory */
        size_t li = 0;            /* its launch */
        uint64_t bi = 0;
        bool live = false, started = false;
    };
    std::vector<Slot> slots(nslots);
    std::vector<size_t> live, left;
    bool failed = false;
    detail::g_interleave = true;
    for (;;) {
        live.clear();
        for (size_t s = 0; s < nslots; ++s) {
            Slot &sl = slots[s];
            if (!sl.live) {
                left.clear();
                for (size_t i = 0; i < nl; ++i)
                    if (ils[i].next < ils[i].nblocks) left.push_back(i);
                if (!left.empty()) {
                    sl.li = left.size() == 1 ? left[0] : left[il_random() % left.size()];
                    IlLaunch &L = ils[sl.li];
                    sl.live = true;
                    sl.started = false;
                    sl.bi = L.border[L.next++];
                }
            }
            if (sl.live) live.push_back(s);
        }
        if (live.empty()) break;
        Slot &sl = slots[live[il_random() % live.size()]];
        const size_t s = size_t(&sl - slots.data());
        IlLaunch &L = ils[sl.li];
        const Launch &l = *L.l;
        if (nl > 1) { /* the slot's launch in place */
            detail::g_gridDim = l.grid;
            detail::g_blockDim = l.block;
            watchdog_kernel(l.func);
#ifdef CUDAEMU_ASAN
            ASAN_POISON_MEMORY_REGION(smem + l.smem, max_smem - l.smem);
            ASAN_UNPOISON_MEMORY_REGION(smem, l.smem);
#endif
        }
        detail::g_blockIdx = block_coords(l.grid, sl.bi);
        if (!sl.started) {
            /* thread i on the slot's fiber i: a fresh one, or one that its
             * previous thread left in fiber_main's loop (as run_kernel reuses
             * fibers from block to block) */
            sl.blk = L.proto;
            for (uint32_t i = 0; i < L.n; ++i) sl.blk.threads[i].f = pools[s][i];
            sl.order = L.base_order;
            if (config().order == Order::Shuffle) reshuffle(sl.order);
            poison_shared(L.ks, smem, l.smem);
        } else if (L.has_shared) {
            load_shared(L.ks, smem, l.smem, sl.shared);
        }
        if (nl > 1 && kGuards) write_smem_guard(smem, l.smem);
        std::swap(b, sl.blk);
        const bool ok = run_block(sl.order, sl.started);
        sl.started = true;
        if (!ok) {
            if (b.code == cudaErrorAssert)
                std::fprintf(stderr, "%s\n", b.error.c_str());
            else
                report("kernel %s failed in block %s: %s", L.kname.c_str(),
                       coords(detail::g_blockIdx).c_str(), b.error.c_str());
            out[sl.li] = b.code;
            abandon_block();
            failed = true;
            break;
        }
        const bool paused = b.paused;
        std::swap(b, sl.blk);
        if (nl > 1 && kGuards && !canary_intact(smem + l.smem, kSmemGuard)) {
            report("out-of-bounds write by kernel %s, block %s (interleaved with other "
                   "kernels; thread unknown): %s", L.kname.c_str(),
                   coords(detail::g_blockIdx).c_str(), damaged(l.device, smem, l.smem).c_str());
            out[sl.li] = cudaErrorIllegalAddress;
            failed = true;
            break;
        }
        if (paused) {
            if (L.has_shared) save_shared(L.ks, smem, l.smem, sl.shared);
        } else {
            sl.live = false;
        }
    }
    detail::g_interleave = false;
    if (failed) /* the other resident blocks are abandoned too */
        for (size_t s = 0; s < nslots; ++s)
            for (uint32_t i = 0; i < nmax && i < pools[s].size(); ++i) fiber::reset(pools[s][i]);
    if (!failed) {
        if (nl > 1 && kGuards) write_smem_guard(smem, ls[0]->smem); /* checked per slice */
        out[0] = guards_after(*ls[0], smem, names, "interleaved");
    }
    end_launch(smem);
}

cudaError_t run_interleaved_kernel(const Launch &l)
{
    const Launch *one = &l;
    cudaError_t e = cudaSuccess;
    run_interleaved_kernels(&one, 1, &e);
    return e;
}
