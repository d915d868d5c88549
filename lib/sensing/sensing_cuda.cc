/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend of spectrum sensing: cuFFT, the floor, the threshold pass, the runs'
// order and their gaps' levels on the device; only the floors, the runs with their gaps'
// levels, and the bands' sums come back to the host.

#include "cuda/cuda_resources.h"
#include "cuda/host_transfer.h"
#include "cuda/stream_graph.h"
#include "sensing/sensing_backend.h"
#include "sensing/sensing_kernels.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <deque>
#include <stdexcept>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

class sensing_cuda final : public sensing_backend
{
public:
    sensing_cuda(const sensing_params& p, int device)
        : d_p(p),
          d_device(device),
          d_guard(device),
          d_fft(p.k.n, 1, direction::forward, fft_options(device))
    {
        const auto n = std::size_t(p.k.n);
        d_in.allocate(n, "sensing frame");
        d_X.allocate(n, "sensing spectrum");
        d_floors.allocate(std::size_t(p.k.subbands), "sensing floors");
        d_raw.allocate(std::size_t(p.k.subbands), "sensing floors");
        d_frame.allocate(frame_track + track_values * std::size_t(p.k.subbands),
                         "sensing floor track");
        d_host_frame.allocate(frame_track + track_values * std::size_t(p.k.subbands));
        d_header.allocate(1, "sensing header");
        d_time_power.allocate(sensing_time_blocks * sensing_time_parts,
                              "sensing time power");
        d_floor_done.allocate(1, "sensing floor");
        GPUFFT_CUDA_CHECK(cudaMemset(d_floor_done.get(), 0, sizeof(unsigned)));
        d_starts.allocate(std::size_t(sensing_max_runs), "sensing runs");
        d_ends.allocate(std::size_t(sensing_max_runs), "sensing runs");
        d_bands.allocate(std::size_t(sensing_max_runs), "sensing bands");
        d_offsets.allocate(std::size_t(sensing_max_runs) + 1, "sensing bands");
        // Bands do not overlap: their cores' chunks number at most one a band more
        // than n / sensing_chunk_bins.
        d_chunks.allocate(std::size_t(sensing_max_runs + p.k.n / sensing_chunk_bins + 1),
                          "sensing bands");
        d_levels.allocate(std::size_t(sensing_max_runs), "sensing gaps");
        d_fill.allocate(std::size_t(sensing_max_runs), "sensing gaps");
        d_block_power.allocate(
            std::size_t((p.k.n + sensing_block_bins - 1) / sensing_block_bins),
            "sensing block sums");
        d_host_header.allocate(1);
        d_host_floors.allocate(std::size_t(p.k.subbands));
        d_ordered.allocate(std::size_t(sensing_ordered_cap), "sensing runs");
        d_host_ordered.allocate(std::size_t(sensing_ordered_cap));
        d_run_bands.allocate(std::size_t(sensing_ordered_cap), "sensing bands");
        d_host_run_bands.allocate(std::size_t(sensing_ordered_cap));
        d_sorted.allocate(2 * std::size_t(sensing_max_runs), "sensing runs");
        d_host_sorted.allocate(2 * std::size_t(sensing_max_runs));
        d_sort_scratch.allocate(sensing_sort_scratch_bytes(sensing_max_runs),
                                "sensing sort");
        d_runs_blocks = sensing_runs_blocks(p.k);
        int sms = 0;
        GPUFFT_CUDA_CHECK(
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        d_run_band_blocks = 2 * std::max(sms, 1);
    }

    bool spectrum(const std::complex<float>* x,
                  memory where,
                  const sensing_floor_track& track,
                  std::vector<double>& floors,
                  std::vector<sensing_run>& runs,
                  sensing_time_power& time) override
    {
        cuda::device_guard guard(d_device);
        d_levels_made = false;
        d_run_bands_made = false;
        const bool tracked = track.prior != nullptr;
        const auto S = std::size_t(d_p.k.subbands);
        const cudaStream_t s = d_stream.get();
        const auto n = std::size_t(d_p.k.n);
        const void* in = x;
        if (where == memory::host) {
            d_stager.to_device(d_in.get(), x, n * sizeof(std::complex<float>), s);
            in = d_in.get();
        } else {
            d_stream.follow_default_stream();
        }
        // The frame's threshold, whether the runs' bands are made, and the plan's floor
        // track go up with the frame from pinned memory, which the graph's copy reads
        // when it runs.
        double* up = d_host_frame.get();
        up[frame_eta] = track.eta;
        up[frame_run_bands] = d_run_bands_on ? 1.0 : 0.0;
        up[frame_quiet] = track.prior_quiet;
        if (tracked)
            std::copy(track.prior, track.prior + track_values * S, up + frame_track);
        if (cuda::stream_graph* g = graph_for(in, tracked))
            g->run(s, [&] { enqueue_spectrum(in, tracked); });
        else
            enqueue_spectrum(in, tracked);
        // As many runs as the last frame had, twice over: a stream's frames are alike,
        // and a frame with more takes a second copy.
        const std::size_t guess = d_copy_runs;
        copy_back(d_host_ordered, d_ordered, 0, guess, s);
        // The runs' bands (240 bytes each) by the last frame's count and an eighth.
        const std::size_t band_guess = d_copy_bands;
        if (d_run_bands_on)
            copy_back(d_host_run_bands, d_run_bands, 0, band_guess, s);
        d_stream.synchronize();
        const sensing_device_header h = *d_host_header.get();
        if (h.bad)
            throw_non_finite_frame();
        time = h.time;
        floors.assign(d_host_floors.get(), d_host_floors.get() + d_p.k.subbands);
        runs.clear();
        // Every run has one first and one last bin; past the capacity some of either
        // are lost and the pairs cannot be told: the frame is then cut (truncated).
        if (h.starts != h.ends || std::int64_t(h.starts) > sensing_max_runs)
            return false;
        const auto m = std::size_t(h.starts);
        runs.resize(m);
        if (h.ordered) {
            if (m > guess || (d_run_bands_on && m > band_guess)) {
                copy_back(d_host_ordered, d_ordered, guess, m, s);
                if (d_run_bands_on)
                    copy_back(d_host_run_bands, d_run_bands, band_guess, m, s);
                d_stream.synchronize();
            }
            const sensing_ordered_run* o = d_host_ordered.get();
            for (std::size_t i = 0; i < m; ++i)
                runs[i] = { o[i].first, o[i].last };
            d_levels_made = true;
            d_run_bands_made = d_run_bands_on;
            d_ordered_count = m;
            std::size_t next = 64;
            while (next < 2 * m && next < std::size_t(sensing_ordered_cap))
                next *= 2;
            d_copy_runs = std::min(next, std::size_t(sensing_ordered_cap));
            d_copy_bands = std::min(m + m / 8 + 16, std::size_t(sensing_ordered_cap));
            return true;
        }
        // Thousands of runs (a modulated carrier dipping under the threshold): sorted
        // on the device by CUB, then one copy; their gaps' levels are read when asked.
        launch_sensing_sort_runs(d_starts.get(),
                                 d_ends.get(),
                                 d_sorted.get(),
                                 std::int64_t(m),
                                 d_p.k.n,
                                 d_sort_scratch.get(),
                                 d_sort_scratch.bytes(),
                                 s);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_host_sorted.get(),
                                          d_sorted.get(),
                                          2 * m * sizeof(std::int64_t),
                                          cudaMemcpyDeviceToHost,
                                          s));
        d_stream.synchronize();
        for (std::size_t i = 0; i < m; ++i)
            runs[i] = { d_host_sorted.get()[i], d_host_sorted.get()[m + i] };
        d_copy_runs = std::size_t(sensing_ordered_cap);
        return true;
    }

    void bands(std::vector<sensing_band>& bands) override
    {
        if (bands.empty())
            return;
        // The bands that are a run's own band, made with the runs, are taken from there;
        // the others (runs bridged, watched signals) go through the round trip below.
        d_pending.clear();
        for (std::size_t i = 0; i < bands.size(); ++i)
            if (!take_run_band(bands[i]))
                d_pending.push_back(i);
        decide_run_bands();
        if (d_pending.empty())
            return;
        cuda::device_guard guard(d_device);
        const cudaStream_t s = d_stream.get();
        const std::size_t m = d_pending.size(), bytes = m * sizeof(sensing_band);
        sensing_band* staged = pinned(d_host_bands, m);
        int* offsets = pinned(d_host_offsets, m + 1);
        int chunks = 0;
        for (std::size_t i = 0; i < m; ++i) {
            const sensing_band& b = bands[d_pending[i]];
            offsets[i] = chunks;
            chunks += sensing_chunk_count(b.core_last - b.core_first + 1);
            staged[i] = b;
        }
        offsets[m] = chunks;
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(d_bands.get(), staged, bytes, cudaMemcpyHostToDevice, s));
        // Every core one chunk (most frames): the kernels read no offsets.
        if (chunks > int(m))
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_offsets.get(),
                                              offsets,
                                              (m + 1) * sizeof(int),
                                              cudaMemcpyHostToDevice,
                                              s));
        launch_sensing_bands(d_p.k,
                             reinterpret_cast<const float*>(d_X.get()),
                             d_floors.get(),
                             d_bands.get(),
                             int(m),
                             d_offsets.get(),
                             chunks,
                             d_chunks.get(),
                             d_p.rule == bandwidth_rule::xdb ? 1 : 0,
                             d_p.xdb_ratio,
                             d_run_band_blocks,
                             s);
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(staged, d_bands.get(), bytes, cudaMemcpyDeviceToHost, s));
        d_stream.synchronize();
        for (std::size_t i = 0; i < m; ++i)
            bands[d_pending[i]] = staged[i];
    }

    void gap_levels(const std::vector<sensing_run>& runs,
                    std::int64_t max_gap,
                    bool exact,
                    std::vector<double>& level) override
    {
        level.assign(runs.empty() ? 0 : runs.size() - 1, 0.0);
        if (runs.size() < 2)
            return;
        if (!exact && max_gap == d_p.max_fill_gap && made_levels_of(runs)) {
            const sensing_ordered_run* o = d_host_ordered.get();
            for (std::size_t i = 0; i + 1 < runs.size(); ++i)
                level[i] = o[i].gap_level;
            return;
        }
        // The gaps go straight into pinned memory: pageable copies each cost a staging
        // copy and, device to host, a wait of their own.
        const std::size_t most = runs.size() - 1;
        std::int64_t* first = pinned(d_host_gap_first, most);
        std::int64_t* last = pinned(d_host_gap_last, most);
        double* fill = pinned(d_host_gap_fill, most);
        d_gap_index.clear();
        for (std::size_t i = 0; i + 1 < runs.size(); ++i) {
            const std::int64_t a = runs[i].last + 1, b = runs[i + 1].first - 1;
            if (b < a || b - a + 1 > max_gap)
                continue;
            const std::size_t j = d_gap_index.size();
            first[j] = a;
            last[j] = b;
            // A fill of 0: no bound decides, every gap is read bin by bin.
            fill[j] = exact ? 0.0 : sensing_gap_fill_level(b - a + 1);
            d_gap_index.push_back(i);
        }
        const std::size_t m = d_gap_index.size();
        if (m == 0)
            return;
        cuda::device_guard guard(d_device);
        const cudaStream_t s = d_stream.get();
        // starts / ends are free once the runs are on the host: they hold the gaps.
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            d_starts.get(), first, m * sizeof(std::int64_t), cudaMemcpyHostToDevice, s));
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            d_ends.get(), last, m * sizeof(std::int64_t), cudaMemcpyHostToDevice, s));
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            d_fill.get(), fill, m * sizeof(double), cudaMemcpyHostToDevice, s));
        launch_sensing_gaps(d_p.k,
                            reinterpret_cast<const float*>(d_X.get()),
                            d_floors.get(),
                            d_block_power.get(),
                            d_starts.get(),
                            d_ends.get(),
                            d_fill.get(),
                            int(m),
                            d_levels.get(),
                            s);
        double* levels = pinned(d_host_levels, m);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            levels, d_levels.get(), m * sizeof(double), cudaMemcpyDeviceToHost, s));
        d_stream.synchronize();
        for (std::size_t j = 0; j < m; ++j)
            level[d_gap_index[j]] = levels[j];
    }

    std::int64_t memory_bytes() const override
    {
        return std::int64_t(d_in.bytes() + d_X.bytes() + d_starts.bytes() +
                            d_ends.bytes() + d_bands.bytes() + d_levels.bytes() +
                            d_fill.bytes() + d_block_power.bytes() + d_sorted.bytes() +
                            d_offsets.bytes() + d_chunks.bytes() + d_run_bands.bytes() +
                            d_sort_scratch.bytes() + d_ordered.bytes());
    }

private:
    // A frame's work up to the runs and their gaps' levels, the same every frame (a
    // graph of it is replayed): the threshold and the track up from d_host_frame, the
    // FFT of `in`, the floor, the threshold pass, the runs' order and gaps, and the
    // header and floors back (the opened floors, before the track, for the plan).
    void enqueue_spectrum(const void* in, bool tracked)
    {
        const auto S = std::size_t(d_p.k.subbands);
        const cudaStream_t s = d_stream.get();
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            d_frame.get(),
            d_host_frame.get(),
            (tracked ? frame_track + track_values * S : frame_track) * sizeof(double),
            cudaMemcpyHostToDevice,
            s));
        const double* eta = d_frame.get() + frame_eta;
        const double* track = tracked ? d_frame.get() + frame_track : nullptr;
        GPUFFT_CUDA_CHECK(
            cudaMemsetAsync(d_header.get(), 0, sizeof(sensing_device_header), s));
        d_fft.execute_async(in, d_X.get(), s);
        const float* X = reinterpret_cast<const float*>(d_X.get());
        launch_sensing_floor(d_p.k,
                             X,
                             static_cast<const float*>(in),
                             d_time_power.get(),
                             d_floors.get(),
                             d_header.get(),
                             d_floor_done.get(),
                             s,
                             track,
                             tracked ? d_frame.get() + frame_quiet : nullptr,
                             tracked ? d_raw.get() : nullptr);
        launch_sensing_runs(d_p.k,
                            eta,
                            X,
                            d_floors.get(),
                            d_starts.get(),
                            d_ends.get(),
                            sensing_max_runs,
                            d_block_power.get(),
                            d_header.get(),
                            d_runs_blocks,
                            s);
        // The runs in order and the levels of their gaps, behind the pass on the device:
        // with the header and the floors they come back in one round trip, and the
        // plan's bridge() then finds its levels made (gap_levels()).
        launch_sensing_order_runs(d_p.k,
                                  X,
                                  d_floors.get(),
                                  d_block_power.get(),
                                  d_starts.get(),
                                  d_ends.get(),
                                  d_header.get(),
                                  d_p.gap_bins,
                                  d_p.max_fill_gap,
                                  d_ordered.get(),
                                  s);
        launch_sensing_run_bands(d_p.k,
                                 X,
                                 d_floors.get(),
                                 d_header.get(),
                                 d_ordered.get(),
                                 d_p.lobe,
                                 d_frame.get() + frame_run_bands,
                                 d_p.rule == bandwidth_rule::xdb ? 1 : 0,
                                 d_p.xdb_ratio,
                                 d_run_band_blocks,
                                 d_run_bands.get(),
                                 s);
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_host_header.get(),
                                          d_header.get(),
                                          sizeof(sensing_device_header),
                                          cudaMemcpyDeviceToHost,
                                          s));
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_host_floors.get(),
                                          tracked ? d_raw.get() : d_floors.get(),
                                          sizeof(double) * S,
                                          cudaMemcpyDeviceToHost,
                                          s));
    }

    // The graph of enqueue_spectrum(in, tracked): one per input array (the FFT reads
    // it) and track state, the last few kept; a host frame is always d_in. Null once
    // max_captures graphs were made: device frames from ever new arrays (a ring of
    // buffers) would capture one a frame, which costs more than it saves.
    cuda::stream_graph* graph_for(const void* in, bool tracked)
    {
        for (auto& g : d_graphs)
            if (g.in == in && g.tracked == tracked)
                return &g.graph;
        if (d_captures == max_captures)
            return nullptr;
        ++d_captures;
        if (d_graphs.size() == max_graphs)
            d_graphs.pop_front();
        d_graphs.push_back(frame_graph{ in, tracked, {} });
        return &d_graphs.back().graph;
    }

    // b's sums from the run bands spectrum() made, where b is one of them: the same
    // core and span give the same sums (bands_kernel's work on the same bins).
    bool take_run_band(sensing_band& b) const
    {
        if (!d_run_bands_made)
            return false;
        const sensing_ordered_run* o = d_host_ordered.get();
        const auto end = o + d_ordered_count;
        const auto it = std::lower_bound(
            o, end, b.core_first, [](const sensing_ordered_run& r, std::int64_t v) {
                return r.first < v;
            });
        if (it == end || it->first != b.core_first)
            return false;
        const sensing_band& r = d_host_run_bands.get()[it - o];
        if (r.core_first != b.core_first || r.core_last != b.core_last ||
            r.first != b.first || r.last != b.last)
            return false;
        b = r;
        return true;
    }

    // Whether the next frames make the runs' bands: while they stand for every band of
    // a frame they spare it the bands' round trip. Once a frame's bands are other than
    // its runs (a carrier's pieces or a tone's neighbour bridged) the round trip is
    // needed anyway, and they are work and copies for little (keeping them on where most
    // bands were runs' own made the neighbours case 10 us slower at n = 2^20, and
    // 1000 tones no faster): off, tried again run_bands_retry frames later.
    void decide_run_bands()
    {
        if (d_run_bands_made) {
            d_run_bands_on = d_pending.empty();
            d_run_bands_off_frames = 0;
        } else if (!d_run_bands_on && ++d_run_bands_off_frames >= run_bands_retry) {
            d_run_bands_on = true;
        }
    }

    // Whether `runs` are the frame's own runs, whose gaps' levels spectrum() made
    // (bridge()'s call; the plan's other calls ask for other gaps or exact levels).
    bool made_levels_of(const std::vector<sensing_run>& runs) const
    {
        if (!d_levels_made || runs.size() > std::size_t(sensing_ordered_cap))
            return false;
        const sensing_ordered_run* o = d_host_ordered.get();
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (runs[i].first != o[i].first || runs[i].last != o[i].last)
                return false;
        return true;
    }

    //! Enqueues the copy of dev's values [from, to) to the same places of host, if any.
    template <typename T>
    static void copy_back(cuda::pinned_buffer<T>& host,
                          const cuda::device_buffer<T>& dev,
                          std::size_t from,
                          std::size_t to,
                          cudaStream_t s)
    {
        if (to > from)
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(host.get() + from,
                                              dev.get() + from,
                                              (to - from) * sizeof(T),
                                              cudaMemcpyDeviceToHost,
                                              s));
    }

    //! b's memory for at least `count` values, grown (never shrunk) as frames need.
    template <typename T>
    static T* pinned(cuda::pinned_buffer<T>& b, std::size_t count)
    {
        if (b.size() < count)
            b.allocate(std::max<std::size_t>({ count, 2 * b.size(), 256 }),
                       "sensing host staging");
        return b.get();
    }

    static dense_fft_options fft_options(int device)
    {
        dense_fft_options o;
        o.backend = backend::cuda;
        o.device_id = device;
        return o;
    }

    const sensing_params d_p; // the kernels take the threshold from d_frame
    const int d_device;
    cuda::device_guard d_guard; // the buffers below live on d_device
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<std::complex<float>> d_in, d_X;
    cuda::device_buffer<double> d_floors, d_raw; // used, opened
    // d_host_frame goes up to d_frame: the frame's threshold, whether the run bands are
    // made (1 or 0), the last frame's quiet power, then the floor track (track_values x
    // subbands: sensing_floor_track's prior).
    static constexpr std::size_t frame_eta = 0, frame_run_bands = 1, frame_quiet = 2,
                                 frame_track = 3, track_values = 3;
    cuda::device_buffer<double> d_frame;
    cuda::pinned_buffer<double> d_host_frame;
    struct frame_graph {
        const void* in;
        bool tracked;
        cuda::stream_graph graph;
    };
    static constexpr std::size_t max_graphs = 4;
    static constexpr int max_captures = 16;
    std::deque<frame_graph> d_graphs; // graph_for()'s
    int d_captures = 0;
    cuda::device_buffer<sensing_device_header> d_header;
    // The sub-frames' powers in parts (launch_sensing_floor).
    cuda::device_buffer<double> d_time_power;
    cuda::device_buffer<unsigned> d_floor_done; // launch_sensing_floor's counter
    cuda::device_buffer<std::int64_t> d_starts, d_ends;
    cuda::device_buffer<sensing_band> d_bands;
    cuda::device_buffer<int> d_offsets;
    cuda::device_buffer<sensing_chunk> d_chunks;
    cuda::pinned_buffer<sensing_band> d_host_bands;
    cuda::pinned_buffer<int> d_host_offsets;
    cuda::pinned_buffer<sensing_device_header> d_host_header;
    cuda::pinned_buffer<double> d_host_floors;
    cuda::device_buffer<sensing_ordered_run> d_ordered;
    cuda::pinned_buffer<sensing_ordered_run> d_host_ordered;
    std::size_t d_copy_runs = 64;    // ordered runs the first copy brings back
    std::size_t d_copy_bands = 64;   // and runs' bands
    bool d_levels_made = false;      // d_host_ordered's gap levels are this frame's
    std::size_t d_ordered_count = 0; // runs in d_host_ordered
    // launch_sensing_run_bands: its output, whether this frame made it, and whether
    // the next frame does (decide_run_bands).
    cuda::device_buffer<sensing_band> d_run_bands;
    cuda::pinned_buffer<sensing_band> d_host_run_bands;
    bool d_run_bands_made = false, d_run_bands_on = true;
    int d_run_bands_off_frames = 0;
    static constexpr int run_bands_retry = 16;
    int d_run_band_blocks = 1;
    std::vector<std::size_t> d_pending;         // bands() through the round trip
    cuda::device_buffer<std::int64_t> d_sorted; // starts, then ends, ascending
    cuda::pinned_buffer<std::int64_t> d_host_sorted;
    cuda::device_buffer<unsigned char> d_sort_scratch;
    cuda::device_buffer<double> d_levels, d_fill;
    cuda::device_buffer<float> d_block_power;
    cuda::pinned_buffer<std::int64_t> d_host_gap_first, d_host_gap_last;
    cuda::pinned_buffer<double> d_host_gap_fill, d_host_levels;
    std::vector<std::size_t> d_gap_index;
    int d_runs_blocks = 1; // the threshold pass's grid (sensing_runs_blocks)
};

} // namespace

std::unique_ptr<sensing_backend> make_sensing_cuda(const sensing_params& p, int device)
{
    return std::make_unique<sensing_cuda>(p, device);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
