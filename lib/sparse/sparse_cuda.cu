/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// CUDA backend of the sparse FFT. Every stage runs on the device: hash (window, permute,
// fold), one batched cuFFT of all hashes, peak, peeling rounds (decode + subtract),
// values (median, then CGLS), residual check (the last CG step sums the residual
// energy; in a frame that it shows not to be exactly sparse, each tone's loops must agree
// on its value), selection (radix select over the located tones, or over the vouched-for
// ones of a frame that is not exactly sparse; never n). The steady-state call is one CUDA
// graph launch (~30 nodes) and one copy of the result block (count, flags, k bins, k
// values).
//
// Host input: either only the samples the hashes read are gathered (host threads, into
// pinned staging) and copied, or all n samples are copied; the first host call times
// both and keeps the faster (sparse_fft_transfer::automatic).

#include "../cuda/cuda_resources.h"
#include "../cuda/host_transfer.h"
#include "host_gather.h"
#include "sparse_backend.h"
#include "sparse_cuda_kernels.cuh"
#include "sparse_cuda_setup.h"
#include "sparse_vote_kernels.cuh"
#include "topk_cuda.h"
#include <gnuradio/gpufft/dense_fft_plan.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace gr {
namespace gpufft {
namespace detail {

namespace {

namespace sk = sparse_kernels;

class sparse_cuda final : public sparse_backend
{
public:
    sparse_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
        : d_p(p),
          d_device(device_id),
          d_transfer(transfer),
          d_fft(p.c.B, p.hashes(), direction::forward, cuda_fft_options(device_id))
    {
        const auto& c = d_p.c;
        const int H = d_p.hashes();
        const std::size_t HB = std::size_t(H) * c.B;
        d_taps.allocate(p.window);
        d_walks.allocate(H);
        d_sigma.allocate(c.loops);
        d_sigma_inv.allocate(c.loops);
        d_tau.allocate(c.loops);
        d_z.allocate(HB);
        d_Z.allocate(HB);
        d_xptr.allocate(1);
        d_h_xptr.allocate(1);
        d_peak.allocate(1);
        d_bad.allocate(1);
        d_max_found = int(p.max_found);
        d_table_size = pow2_at_least(
            2 * (std::uint64_t(p.max_found) + std::uint64_t(c.loops) * c.B));
        d_table.allocate(d_table_size);
        d_found_f.allocate(d_max_found);
        d_found_x.allocate(d_max_found);
        d_count.allocate(1);
        d_count_at.allocate(p.rounds + 1);
        d_per = c.loops * 3 * c.levels;
        d_vx.allocate(d_max_found);
        d_resp.allocate(std::size_t(d_max_found) * d_per);
        d_at.allocate(std::size_t(d_max_found) * d_per);
        d_R.allocate(HB);
        d_q.allocate(HB);
        d_s.allocate(d_max_found);
        d_pdir[0].allocate(d_max_found);
        d_pdir[1].allocate(d_max_found);
        d_gamma.allocate(p.value_passes + 1);
        d_qq.allocate(std::max(1, p.value_passes));
        d_energy.allocate(2);
        d_keep.allocate(d_max_found);
        d_vm.allocate(d_max_found);
        const std::size_t out_bytes =
            sizeof(sk::out_header) +
            std::size_t(p.k) * (sizeof(long long) + sizeof(float2));
        d_out.allocate(out_bytes);
        h_out.allocate(out_bytes);
        if (p.voting) {
            // n bits per loop; zeroed here once, then each call clears the words it set.
            d_vote_words = (std::uint64_t(c.n) + 63) / 64;
            d_bits.allocate(std::size_t(c.loops) * d_vote_words);
            d_sel.allocate(std::size_t(c.loops) * p.vote_cutoff);
            d_nsel.allocate(c.loops);
            d_decoded.allocate(std::size_t(c.loops) * c.B);
            d_decoded_x.allocate(std::size_t(c.loops) * c.B);
            GPUFFT_CUDA_CHECK(
                cudaMemsetAsync(d_bits.get(), 0, d_bits.bytes(), d_stream.get()));
            GPUFFT_CUDA_CHECK(cudaMemsetAsync(
                d_decoded.get(), 0xff, d_decoded.bytes(), d_stream.get())); // all -1
        }

        // Filters and permutations: built once, on the host (O(window)), copied once.
        const std::vector<float> taps = make_window(p);
        std::vector<sk::hash_walk> walks(H);
        for (int h = 0; h < H; ++h)
            walks[h] = { p.sample_index(h, -p.half_window), p.sigma[h / c.levels] };
        copy_up(d_taps.get(), taps.data(), taps.size() * sizeof(float));
        copy_up(d_walks.get(), walks.data(), walks.size() * sizeof(sk::hash_walk));
        copy_up(d_sigma.get(), p.sigma.data(), c.loops * sizeof(std::uint64_t));
        copy_up(d_sigma_inv.get(), p.sigma_inv.data(), c.loops * sizeof(std::uint64_t));
        copy_up(d_tau.get(), p.tau.data(), c.loops * sizeof(std::uint64_t));
        d_use_graph = std::getenv("GPUFFT_SPARSE_NO_GRAPH") == nullptr;
        d_stream.synchronize();
    }

    ~sparse_cuda() override
    {
        for (auto& g : d_graph)
            if (g)
                cudaGraphExecDestroy(g);
    }

    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override
    {
        cuda::device_guard guard(d_device);
        if (where == memory::device) {
            run_device(reinterpret_cast<const float2*>(x));
        } else {
            if (d_transfer == sparse_fft_transfer::automatic)
                choose_transfer(x);
            if (d_transfer == sparse_fft_transfer::gather)
                run_gathered(x);
            else
                run_full_copy(x);
        }
        finish(bins, values);
    }

    bool not_sparse() const override { return d_not_sparse; }

    std::string notes() const override
    {
        std::ostringstream os;
        os << "host input: "
           << (d_transfer == sparse_fft_transfer::gather      ? "gather touched samples"
               : d_transfer == sparse_fft_transfer::full_copy ? "copy all n"
                                                              : "measured on first call");
        if (!d_measure.empty())
            os << " (" << d_measure << ")";
        os << ", " << (d_use_graph ? "CUDA graph" : "stream launches");
        return os.str();
    }

private:
    template <typename T>
    void copy_up(T* dst, const void* src, std::size_t bytes)
    {
        GPUFFT_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, d_stream.get()));
        d_stream.synchronize();
    }

    // Everything after the samples are on the device, on d_stream. mode 0: read x through
    // d_xptr (device input), 1: read the staged gather.
    void enqueue(int mode)
    {
        const auto& c = d_p.c;
        cudaStream_t s = d_stream.get();
        const int H = d_p.hashes();
        sk::reset_kernel<<<unsigned(std::min<unsigned long long>(
                               512, (d_table_size + 255) / 256)),
                           256,
                           0,
                           s>>>(d_table.get(),
                                d_table_size,
                                d_peak.get(),
                                d_bad.get(),
                                d_count.get(),
                                d_count_at.get(),
                                d_p.rounds,
                                d_gamma.get(),
                                d_qq.get(),
                                d_p.value_passes,
                                d_energy.get());
        GPUFFT_CUDA_CHECK_LAUNCH();

        const dim3 hblock(sk::hash_buckets, sk::hash_rows);
        const dim3 hgrid(unsigned((c.B + sk::hash_buckets - 1) / sk::hash_buckets),
                         unsigned(H));
        if (mode == 0) {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
                d_xptr.get(), d_h_xptr.get(), sizeof(void*), cudaMemcpyHostToDevice, s));
            sk::hash_kernel<false><<<hgrid, hblock, 0, s>>>(d_xptr.get(),
                                                            nullptr,
                                                            d_taps.get(),
                                                            d_walks.get(),
                                                            c.n,
                                                            c.B,
                                                            d_p.window,
                                                            d_p.half_window,
                                                            d_z.get());
        } else {
            GPUFFT_CUDA_CHECK(cudaMemcpyAsync(d_staged.get(),
                                              h_staged.get(),
                                              d_staged.bytes(),
                                              cudaMemcpyHostToDevice,
                                              s));
            sk::hash_kernel<true><<<hgrid, hblock, 0, s>>>(nullptr,
                                                           d_staged.get(),
                                                           d_taps.get(),
                                                           d_walks.get(),
                                                           c.n,
                                                           c.B,
                                                           d_p.window,
                                                           d_p.half_window,
                                                           d_z.get());
        }
        GPUFFT_CUDA_CHECK_LAUNCH();
        d_fft.execute_async(d_z.get(), d_Z.get(), s);

        const long long HB = (long long)H * c.B;
        sk::peak_kernel<<<unsigned(std::min<long long>(256, (HB + 255) / 256)),
                          256,
                          0,
                          s>>>(d_Z.get(), HB, d_peak.get(), d_bad.get(), d_energy.get());
        GPUFFT_CUDA_CHECK_LAUNCH();

        sk::peel_state st{ d_table.get(),   d_table_size - 1, d_found_f.get(),
                           d_found_x.get(), d_count.get(),    d_count_at.get(),
                           d_max_found };
        const long long LB = (long long)c.loops * c.B;
        const unsigned dgrid = unsigned((LB + 127) / 128);
        const unsigned sgrid = unsigned(((long long)d_max_found * c.loops + 127) / 128);
        if (d_p.voting)
            enqueue_voting(st);
        for (int round = 0; round < d_p.rounds && !d_p.voting; ++round) {
            sk::decode_kernel<<<dgrid, 128, 0, s>>>(c,
                                                    d_Z.get(),
                                                    d_sigma_inv.get(),
                                                    d_tau.get(),
                                                    d_peak.get(),
                                                    d_p.threshold_rel,
                                                    st,
                                                    round);
            GPUFFT_CUDA_CHECK_LAUNCH();
            sk::subtract_kernel<<<sgrid, 128, 0, s>>>(
                c, d_Z.get(), d_sigma.get(), d_tau.get(), st, round);
            GPUFFT_CUDA_CHECK_LAUNCH();
        }
        // Values: median over hashes, then least squares (CGLS) on the normal equations.
        sk::value_state v{ d_vx.get(),     d_resp.get(),
                           d_at.get(),     d_per,
                           d_R.get(),      d_q.get(),
                           d_s.get(),      { d_pdir[0].get(), d_pdir[1].get() },
                           d_gamma.get(),  d_qq.get(),
                           d_energy.get(), d_keep.get(),
                           d_vm.get() };
        const unsigned tgrid = unsigned((d_max_found + 127) / 128);
        const unsigned mgrid = unsigned(((long long)d_max_found * d_per + 255) / 256);
        const unsigned bgrid = unsigned((HB + 255) / 256);
        sk::median_kernel<<<tgrid, 128, 0, s>>>(
            c, d_Z.get(), d_sigma.get(), d_tau.get(), st, v);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::residual_kernel<<<bgrid, 256, 0, s>>>(d_Z.get(), HB, d_R.get(), d_q.get());
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::median_residual_kernel<<<mgrid, 256, 0, s>>>(st, v);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::adjoint_kernel<<<tgrid, 128, 0, s>>>(st, v, 0);
        GPUFFT_CUDA_CHECK_LAUNCH();
        for (int it = 0; it < d_p.value_passes; ++it) {
            sk::forward_kernel<<<mgrid, 256, 0, s>>>(st, v, it);
            GPUFFT_CUDA_CHECK_LAUNCH();
            sk::norm_kernel<<<unsigned(std::min<long long>(128, (HB + 255) / 256)),
                              256,
                              0,
                              s>>>(v, HB, it);
            GPUFFT_CUDA_CHECK_LAUNCH();
            const unsigned step_grid =
                unsigned((std::max<long long>(HB, d_max_found) + 255) / 256);
            if (it + 1 < d_p.value_passes)
                sk::step_kernel<false><<<step_grid, 256, 0, s>>>(st, v, HB, it);
            else // the last iteration also sums the residual energy
                sk::step_kernel<true><<<step_grid, 256, 0, s>>>(st, v, HB, it);
            GPUFFT_CUDA_CHECK_LAUNCH();
            if (it + 1 < d_p.value_passes) {
                sk::adjoint_kernel<<<tgrid, 128, 0, s>>>(st, v, it + 1);
                GPUFFT_CUDA_CHECK_LAUNCH();
            }
        }
        // Residual check: per tone, only in a frame that is not exactly sparse.
        sk::vouch_kernel<<<tgrid, 128, 0, s>>>(c, st, v);
        GPUFFT_CUDA_CHECK_LAUNCH();
        sk::select_kernel<<<1, 1024, 0, s>>>(
            st, v, d_bad.get(), int(d_p.k), out_header(), out_f(), out_x());
        GPUFFT_CUDA_CHECK_LAUNCH();
        GPUFFT_CUDA_CHECK(cudaMemcpyAsync(
            h_out.get(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, s));
    }

    // The voting location (sparse_vote_kernels.cuh): cutoff, votes, then per round the
    // selected buckets' single-tone test, acceptance of voted frequencies and the
    // phase path's subtraction; last, the vote maps are cleared word by word.
    void enqueue_voting(const sk::peel_state& st)
    {
        const auto& c = d_p.c;
        cudaStream_t s = d_stream.get();
        const sk::vote_state v{ d_bits.get(),    d_vote_words,      d_sel.get(),
                                d_nsel.get(),    d_decoded.get(),   d_decoded_x.get(),
                                d_p.vote_cutoff, d_p.vote_threshold };
        GPUFFT_CUDA_CHECK(cudaMemsetAsync(d_nsel.get(), 0, d_nsel.bytes(), s));
        const long long LB = (long long)c.loops * c.B;
        sk::vote_select_kernel<<<unsigned((LB + 255) / 256), 256, 0, s>>>(
            c, d_Z.get(), d_peak.get(), d_p.threshold_rel, v);
        GPUFFT_CUDA_CHECK_LAUNCH();
        const long long runs = (c.nb + sk::vote_run - 1) / sk::vote_run;
        const long long per_loop = d_p.vote_cutoff * runs;
        const unsigned all_grid = unsigned((c.loops * per_loop + 255) / 256);
        const unsigned loop0_grid = unsigned((per_loop + 255) / 256);
        sk::vote_mark_kernel<<<all_grid, 256, 0, s>>>(c, d_sigma_inv.get(), v);
        GPUFFT_CUDA_CHECK_LAUNCH();
        const unsigned sel_grid = unsigned((c.loops * d_p.vote_cutoff + 127) / 128);
        const unsigned sgrid = unsigned(((long long)d_max_found * c.loops + 127) / 128);
        for (int round = 0; round < d_p.rounds; ++round) {
            sk::vote_decode_kernel<<<sel_grid, 128, 0, s>>>(c,
                                                            d_Z.get(),
                                                            d_sigma_inv.get(),
                                                            d_tau.get(),
                                                            d_peak.get(),
                                                            d_p.threshold_rel,
                                                            st,
                                                            v,
                                                            round);
            GPUFFT_CUDA_CHECK_LAUNCH();
            sk::vote_accept_kernel<<<loop0_grid, 256, 0, s>>>(
                c, d_sigma.get(), d_sigma_inv.get(), st, v, round);
            GPUFFT_CUDA_CHECK_LAUNCH();
            sk::subtract_kernel<<<sgrid, 128, 0, s>>>(
                c, d_Z.get(), d_sigma.get(), d_tau.get(), st, round);
            GPUFFT_CUDA_CHECK_LAUNCH();
        }
        sk::vote_clear_kernel<<<all_grid, 256, 0, s>>>(c, d_sigma_inv.get(), v);
        GPUFFT_CUDA_CHECK_LAUNCH();
    }

    sk::out_header* out_header() const
    {
        return reinterpret_cast<sk::out_header*>(d_out.get());
    }
    long long* out_f() const
    {
        return reinterpret_cast<long long*>(d_out.get() + sizeof(sk::out_header));
    }
    float2* out_x() const
    {
        return reinterpret_cast<float2*>(d_out.get() + sizeof(sk::out_header) +
                                         std::size_t(d_p.k) * sizeof(long long));
    }

    // The steady-state call: one graph launch (captured on first use of each mode).
    void launch(int mode)
    {
        if (d_use_graph && !d_graph[mode]) {
            cudaGraph_t graph = nullptr;
            GPUFFT_CUDA_CHECK(
                cudaStreamBeginCapture(d_stream.get(), cudaStreamCaptureModeThreadLocal));
            try {
                enqueue(mode);
            } catch (...) {
                cudaStreamEndCapture(d_stream.get(), &graph);
                if (graph)
                    cudaGraphDestroy(graph);
                cudaGetLastError();
                d_use_graph = false; // fall back to plain launches
            }
            if (d_use_graph) {
                GPUFFT_CUDA_CHECK(cudaStreamEndCapture(d_stream.get(), &graph));
                const cudaError_t err = cudaGraphInstantiate(&d_graph[mode], graph, 0);
                cudaGraphDestroy(graph);
                if (err != cudaSuccess) {
                    cudaGetLastError();
                    d_graph[mode] = nullptr;
                    d_use_graph = false;
                }
            }
        }
        if (d_use_graph)
            GPUFFT_CUDA_CHECK(cudaGraphLaunch(d_graph[mode], d_stream.get()));
        else
            enqueue(mode);
    }

    void run_device(const float2* x)
    {
        d_h_xptr[0] = x;
        launch(0);
    }

    void ensure_gather()
    {
        if (h_staged.get())
            return;
        d_gather_index = gather_indices(d_p);
        h_staged.allocate(d_gather_index.size());
        d_staged.allocate(d_gather_index.size());
        d_gather = std::make_unique<host_gather>(
            host_gather::threads_for(d_gather_index.size()));
    }

    void run_gathered(const std::complex<float>* x)
    {
        ensure_gather();
        d_gather->run(x,
                      d_gather_index.data(),
                      d_gather_index.size(),
                      reinterpret_cast<std::complex<float>*>(h_staged.get()));
        launch(1);
    }

    void run_full_copy(const std::complex<float>* x)
    {
        const std::size_t bytes = std::size_t(d_p.c.n) * sizeof(float2);
        if (!d_full.get())
            d_full.allocate(d_p.c.n);
        d_stager.to_device(d_full.get(), x, bytes, d_stream.get());
        run_device(d_full.get());
    }

    // Times both host paths on this input (each after a warm-up) and keeps the faster.
    void choose_transfer(const std::complex<float>* x)
    {
        std::vector<std::int64_t> b;
        std::vector<std::complex<float>> v;
        auto time_it = [&](auto&& fn) {
            fn();
            d_stream.synchronize();
            const auto t0 = std::chrono::steady_clock::now();
            fn();
            d_stream.synchronize();
            return std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - t0)
                .count();
        };
        const double tg = time_it([&] { run_gathered(x); });
        double tf = 1e300;
        std::size_t free_b = 0, total_b = 0;
        GPUFFT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const std::size_t need = std::size_t(d_p.c.n) * sizeof(float2);
        if (need < free_b / 2) {
            tf = time_it([&] { run_full_copy(x); });
            std::ostringstream os;
            os << "gather " << tg << " ms vs copy " << tf << " ms";
            d_measure = os.str();
        } else {
            d_measure = "no room for an n-sample device copy";
        }
        d_transfer =
            tg <= tf ? sparse_fft_transfer::gather : sparse_fft_transfer::full_copy;
        if (d_transfer == sparse_fft_transfer::gather)
            d_full.release();
        else {
            h_staged.release();
            d_staged.release();
            d_gather_index.clear();
            d_gather_index.shrink_to_fit();
            d_gather.reset();
        }
    }

    void finish(std::vector<std::int64_t>& bins, std::vector<std::complex<float>>& values)
    {
        d_stream.synchronize();
        const auto* hdr = reinterpret_cast<const sk::out_header*>(h_out.get());
        d_not_sparse = !hdr->bad && hdr->not_sparse != 0;
        if (hdr->bad)
            throw_non_finite();
        const auto* f =
            reinterpret_cast<const long long*>(h_out.get() + sizeof(sk::out_header));
        const auto* x =
            reinterpret_cast<const float2*>(h_out.get() + sizeof(sk::out_header) +
                                            std::size_t(d_p.k) * sizeof(long long));
        const int count = std::min<int>(hdr->count, int(d_p.k));
        bins.resize(count);
        values.resize(count);
        for (int i = 0; i < count; ++i) {
            bins[i] = f[i];
            values[i] = std::complex<float>(x[i].x, x[i].y);
        }
        keep_top_k_sorted(d_p.k, bins, values); // orders by bin
    }

    sparse_params d_p;
    int d_device;
    sparse_fft_transfer d_transfer;
    std::string d_measure;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<float> d_taps;
    cuda::device_buffer<sk::hash_walk> d_walks;
    cuda::device_buffer<unsigned long long> d_sigma, d_sigma_inv, d_tau;
    cuda::device_buffer<float2> d_z, d_Z;
    cuda::device_buffer<const float2*> d_xptr;
    cuda::pinned_buffer<const float2*> d_h_xptr;
    cuda::device_buffer<unsigned int> d_peak;
    cuda::device_buffer<int> d_bad;
    int d_max_found = 0;
    unsigned long long d_table_size = 0;
    cuda::device_buffer<unsigned long long> d_table;
    cuda::device_buffer<long long> d_found_f;
    cuda::device_buffer<double2> d_found_x;
    cuda::device_buffer<int> d_count, d_count_at;
    int d_per = 0;
    cuda::device_buffer<double2> d_vx, d_resp, d_R, d_q, d_s, d_pdir[2];
    cuda::device_buffer<int> d_at;
    cuda::device_buffer<double> d_gamma, d_qq;
    // Residual check: hashed and residual energy, per tone vouched-for and median value.
    cuda::device_buffer<double> d_energy;
    cuda::device_buffer<int> d_keep;
    cuda::device_buffer<double2> d_vm;
    bool d_not_sparse = false;
    cuda::device_buffer<unsigned char> d_out; // out_header, k bins, k values
    cuda::pinned_buffer<unsigned char> h_out;
    // Host-input paths.
    std::vector<std::uint64_t> d_gather_index;
    std::unique_ptr<host_gather> d_gather;
    cuda::pinned_buffer<float2> h_staged;
    cuda::device_buffer<float2> d_staged;
    cuda::device_buffer<float2> d_full;
    // Voting location (allocated only when d_p.voting).
    unsigned long long d_vote_words = 0;
    cuda::device_buffer<unsigned long long> d_bits;
    cuda::device_buffer<long long> d_sel, d_decoded;
    cuda::device_buffer<int> d_nsel;
    cuda::device_buffer<double2> d_decoded_x;
    bool d_use_graph = true;
    cudaGraphExec_t d_graph[2] = { nullptr, nullptr };
};

class dense_topk_cuda final : public sparse_backend
{
public:
    dense_topk_cuda(std::int64_t n, std::int64_t k, int device_id)
        : d_device(device_id),
          d_n(n),
          d_fft(n, 1, direction::forward, cuda_fft_options(device_id)),
          d_X(n),
          d_topk(n, k)
    {
    }
    void execute(const std::complex<float>* x,
                 memory where,
                 std::vector<std::int64_t>& bins,
                 std::vector<std::complex<float>>& values) override
    {
        cuda::device_guard guard(d_device);
        const void* in = x;
        if (where == memory::host) {
            if (!d_in.get())
                d_in.allocate(d_n);
            d_stager.to_device(
                d_in.get(), x, std::size_t(d_n) * sizeof(float2), d_stream.get());
            in = d_in.get();
        }
        d_fft.execute_async(in, d_X.get(), d_stream.get());
        d_topk.enqueue(reinterpret_cast<const std::complex<float>*>(d_X.get()),
                       d_stream.get());
        d_stream.synchronize();
        d_topk.result(bins, values);
    }

private:
    int d_device;
    std::int64_t d_n;
    dense_fft_plan d_fft;
    cuda::stream d_stream;
    cuda::host_stager d_stager;
    cuda::device_buffer<float2> d_in;
    cuda::device_buffer<float2> d_X;
    device_topk d_topk;
};

} // namespace

std::unique_ptr<sparse_backend>
make_sparse_cuda(const sparse_params& p, int device_id, sparse_fft_transfer transfer)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<sparse_cuda>(p, device_id, transfer);
}

std::unique_ptr<sparse_backend>
make_dense_topk_cuda(std::int64_t n, std::int64_t k, int device_id)
{
    cuda::device_guard guard(device_id);
    return std::make_unique<dense_topk_cuda>(n, k, device_id);
}

} // namespace detail
} // namespace gpufft
} // namespace gr
