/* emu/src/scheduler_coop.h - cooperative launches (cudaLaunchCooperativeKernel):
 * every block of the grid resident at once, so grid_group::sync() can be a
 * grid-wide barrier.  Included by scheduler.cpp inside namespace cudaemu (it
 * uses the scheduler's block model); not a header of its own.
 *
 * Every block runs on the same fibers (thread i of each block on pool fiber
 * i, so a thread always has the same stack addresses).  A block parked at
 * grid_group::sync() keeps its threads' live frames (the few hundred bytes
 * between each fiber's stack pointer and the top of its stack, fiber::park)
 * while the other blocks run on the stacks, and gets them back in place
 * (fiber::unpark) when it resumes: a grid of any size the emulated device
 * holds (264 blocks of 1024 threads) needs one block's worth of stacks and
 * guard pages.  The blocks run one after another, as in run_kernel, until each
 * has returned or parked at the grid barrier (all its threads there); when
 * every block is parked they resume, in the configured block order, up to the
 * next barrier.  A block's dynamic shared memory is saved while it is parked
 * and restored when it resumes.  Static __shared__ variables are one per
 * program (one block runs at a time), so they do NOT keep a block's values
 * across grid_group::sync(): keep such data in dynamic shared memory.  A
 * block returning while others wait at the grid barrier fails the launch, as
 * a thread returning while its block waits at __syncthreads() does.  Guard
 * zones are checked once per launch (the message names the kernel only).
 * launch.cpp refuses grids that could not be resident on the emulated device
 * (cudaErrorCooperativeLaunchTooLarge) before one gets here.
 */

cudaError_t run_cooperative_kernel(const Launch &l)
{
    Block &b = g_blk;
    const auto [smem, begun, n, nblocks, kname, ks] = begin_grid_launch(l);
    if (!smem) return begun;
    ensure_pool(n);
    b.cooperative = true;
    b.owned = true;
    cudaError_t result = cudaSuccess;
    if (guards_damaged_before(l, smem, kname)) result = cudaErrorIllegalAddress;

    std::vector<uint32_t> order;
    make_order(order, n);
    std::vector<uint64_t> pending(nblocks);          /* blocks not yet returned */
    for (uint64_t k = 0; k < nblocks; ++k)
        pending[k] = config().order == Order::Rev ? nblocks - 1 - k : k;
    std::vector<uint8_t> started(nblocks, 0);        /* parked at least once */
    std::vector<std::vector<char>> saved(nblocks);   /* shared memory of parked blocks */
    /* their threads' parked frames (kept across launches: no page faults for
     * the same space at every grid barrier), thread i's record at frame_at */
    static std::vector<std::vector<char>> frames;
    static std::vector<std::vector<size_t>> frame_at;
    if (frames.size() < nblocks) {
        frames.resize(nblocks);
        frame_at.resize(nblocks);
    }
    uint64_t phase = 0;
    while (result == cudaSuccess && !pending.empty()) {
        if (config().order == Order::Shuffle) std::shuffle(pending.begin(), pending.end(), rng());
        std::vector<uint64_t> parked;
        uint64_t returned = 0;
        uint3 first_returned{0, 0, 0};
        for (uint64_t bi : pending) {
            detail::g_blockIdx = block_coords(l.grid, bi);
            for (uint32_t i = 0; i < n; ++i) {
                b.threads[i].f = g_pool[i];
                b.threads[i].mid = started[bi] != 0;
                if (started[bi]) fiber::unpark(g_pool[i], frames[bi].data() + frame_at[bi][i]);
                else fiber::reset(g_pool[i]); /* it may hold a parked block's frames */
            }
            frames[bi].clear();
            if (started[bi]) load_shared(ks, smem, l.smem, saved[bi]);
            else poison_shared(ks, smem, l.smem);
            if (config().order == Order::Shuffle) reshuffle(order);
            if (!run_block(order)) {
                report("kernel %s failed in block %s: %s", kname.c_str(),
                       coords(detail::g_blockIdx).c_str(), b.error.c_str());
                result = b.code;
                break;
            }
            if (b.ngrid == 0) {
                std::vector<char>().swap(saved[bi]);
                if (returned++ == 0) first_returned = detail::g_blockIdx;
                continue;
            }
            if (b.ndone) {
                report("kernel %s failed in block %s: %u thread(s) returned while %u other "
                       "thread(s) of the block wait in grid_group::sync(): every thread of "
                       "the grid must reach it", kname.c_str(),
                       coords(detail::g_blockIdx).c_str(), b.ndone, b.ngrid);
                result = cudaErrorLaunchFailure;
                break;
            }
            save_shared(ks, smem, l.smem, saved[bi]);
            frame_at[bi].resize(n);
            for (uint32_t i = 0; i < n; ++i) frame_at[bi][i] = fiber::park(g_pool[i], frames[bi]);
            started[bi] = 1;
            parked.push_back(bi);
        }
        if (result == cudaSuccess && returned && !parked.empty()) {
            report("kernel %s failed: block %s returned while %zu block(s) wait in "
                   "grid_group::sync() (barrier %llu): every block of the grid must reach it",
                   kname.c_str(), coords(first_returned).c_str(), parked.size(),
                   (unsigned long long)phase + 1);
            result = cudaErrorLaunchFailure;
        }
        if (result != cudaSuccess) break;
        pending.swap(parked);
        ++phase;
    }
    if (result != cudaSuccess) {
        /* abandon the running block and every parked one */
        abandon_block(); /* the parked blocks' frames are dropped */
        for (uint64_t bi = 0; bi < nblocks; ++bi) frames[bi].clear();
        for (uint32_t i = 0; i < n; ++i) {
            fiber::reset(g_pool[i]);
            b.threads[i].mid = false;
        }
    }
    if (result == cudaSuccess) result = guards_after(l, smem, kname, "cooperative");
    end_launch(smem);
    return result;
}
