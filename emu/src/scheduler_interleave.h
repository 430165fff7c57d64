/* emu/src/scheduler_interleave.h - interleaved launches (CUDAEMU_INTERLEAVE=1):
 * several blocks of a grid resident at once, their threads preempted at
 * random yield points, so that a race between blocks (a non-atomic
 * read-modify-write of global memory, a flag read before another block set
 * it) gives the wrong result it can give on a GPU.  Included by
 * scheduler.cpp inside namespace cudaemu (it uses the scheduler's block
 * model); not a header of its own.
 *
 * Up to kIlResident blocks are resident, each in a slot with its own fibers
 * (thread i of the slot's block on the slot's fiber i, from its start to its
 * return: no run-through) and its own copy of the block model (g_blk is
 * swapped with the slot's).  The blocks enter the slots in the configured
 * block order.  The scheduler picks a resident block at random (seeded by
 * CUDAEMU_SEED and the launch's number: the same program and seed give the
 * same interleaving) and runs it until its threads have all returned or a
 * yield point pauses it (interleave_point: after 1 to kIlMaxRun yield points
 * a thread is preempted; one preemption in kIlBlockSwitch pauses the block,
 * the others go on to the next thread of the block).  Yield points are the
 * translator's, after every statement of a kernel body, and
 * __threadfence(); the barriers and warp primitives switch threads as
 * always.  Shared memory (the launch's dynamic and the kernel's static) lives
 * at fixed addresses: a paused block's is saved and the resumed block's
 * restored.  Guard zones are checked once per launch (the message names the
 * kernel only).  Cooperative launches are not interleaved (their blocks meet
 * at grid barriers: run_cooperative_kernel).
 */

constexpr size_t kIlResident = 8;

cudaError_t run_interleaved_kernel(const Launch &l)
{
    Block &b = g_blk;
    const auto [smem, begun, n, nblocks, kname, ks] = begin_grid_launch(l);
    if (!smem) return begun;
    cudaError_t result = cudaSuccess;
    if (guards_damaged_before(l, smem, kname)) {
        end_launch(smem);
        return cudaErrorIllegalAddress;
    }
    static uint64_t launches = 0;
    g_il_state = config().seed * 0x2545f4914f6cdd1dull + ++launches;
    g_il_countdown = 1 + int(il_random() % kIlMaxRun);

    /* the fibers of each slot, kept across launches */
    static std::vector<std::vector<fiber::Fiber *>> pools(kIlResident);
    const size_t nslots = size_t(std::min<uint64_t>(kIlResident, nblocks));
    for (size_t s = 0; s < nslots; ++s)
        while (pools[s].size() < n) pools[s].push_back(fiber::create(fiber_main, nullptr));

    b.owned = true;
    b.interleaved = true;
    const Block proto = b; /* a fresh block's model */
    std::vector<uint32_t> base_order;
    make_order(base_order, n);
    struct Slot {
        Block blk;
        std::vector<uint32_t> order;
        std::vector<char> shared; /* a paused block's shared memory */
        uint64_t bi = 0;
        bool live = false, started = false;
    };
    std::vector<Slot> slots(nslots);
    std::vector<uint64_t> border(nblocks);
    for (uint64_t k = 0; k < nblocks; ++k)
        border[k] = config().order == Order::Rev ? nblocks - 1 - k : k;
    if (config().order == Order::Shuffle) std::shuffle(border.begin(), border.end(), rng());
    uint64_t next = 0;
    std::vector<size_t> live;
    const bool has_shared = l.smem || (ks && !ks->shared.empty());
    detail::g_interleave = true;
    for (;;) {
        live.clear();
        for (size_t s = 0; s < nslots; ++s) {
            Slot &sl = slots[s];
            if (!sl.live && next < nblocks) {
                sl.live = true;
                sl.started = false;
                sl.bi = border[next++];
            }
            if (sl.live) live.push_back(s);
        }
        if (live.empty()) break;
        Slot &sl = slots[live[il_random() % live.size()]];
        const size_t s = size_t(&sl - slots.data());
        detail::g_blockIdx = block_coords(l.grid, sl.bi);
        if (!sl.started) {
            /* thread i on the slot's fiber i: a fresh one, or one that its
             * previous thread left in fiber_main's loop (as run_kernel reuses
             * fibers from block to block) */
            sl.blk = proto;
            for (uint32_t i = 0; i < n; ++i) sl.blk.threads[i].f = pools[s][i];
            sl.order = base_order;
            if (config().order == Order::Shuffle) reshuffle(sl.order);
            poison_shared(ks, smem, l.smem);
        } else if (has_shared) {
            load_shared(ks, smem, l.smem, sl.shared);
        }
        std::swap(b, sl.blk);
        const bool ok = run_block(sl.order, sl.started);
        sl.started = true;
        if (!ok) {
            if (b.code == cudaErrorAssert)
                std::fprintf(stderr, "%s\n", b.error.c_str());
            else
                report("kernel %s failed in block %s: %s", kname.c_str(),
                       coords(detail::g_blockIdx).c_str(), b.error.c_str());
            result = b.code;
            abandon_block();
            break;
        }
        const bool paused = b.paused;
        std::swap(b, sl.blk);
        if (paused) {
            if (has_shared) save_shared(ks, smem, l.smem, sl.shared);
        } else {
            sl.live = false;
        }
    }
    detail::g_interleave = false;
    if (result != cudaSuccess) /* the other resident blocks are abandoned too */
        for (size_t s = 0; s < nslots; ++s)
            for (uint32_t i = 0; i < n && i < pools[s].size(); ++i) fiber::reset(pools[s][i]);
    if (result == cudaSuccess) result = guards_after(l, smem, kname, "interleaved");
    end_launch(smem);
    return result;
}
