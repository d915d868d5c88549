/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpufft authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// One rule for every block about an engine call that throws inside work(), so a block
// neither hangs nor skips frames forever behind a dead GPU (docs/reliability.md,
// "Faults inside blocks"):
// - the engine refuses this frame (std::invalid_argument): the frame is skipped;
// - a CUDA allocation fails while the block asked for backend "auto": that is logged
//   once, the engine is made again on the CPU, and the CPU takes this frame and the rest;
// - anything else (a CUDA error, a backend the user named running out of memory, the
//   host out of memory): the block logs it and ends the stream.

#ifndef INCLUDED_GPUFFT_STREAM_ENGINE_FAILURE_H
#define INCLUDED_GPUFFT_STREAM_ENGINE_FAILURE_H

#include "core/memory_error.h"
#include <gnuradio/gpufft/backend.h>
#include <gnuradio/gpufft/log.h>
#include <stdexcept>
#include <string>
#include <utility>

namespace gr {
namespace gpufft {
namespace stream {

//! Thrown out of a block's frame processing when the stream must end; the block logs
//! what() and returns WORK_DONE.
class engine_stopped : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/*!
 * Moves a block's engine from the GPU to the CPU when the GPU cannot hold it, for a
 * block that asked for backend "auto". `block` names the block in the log line.
 */
class cpu_fallback
{
public:
    cpu_fallback(gpufft::backend requested, std::string block, log_handler log)
        : d_requested(requested), d_block(std::move(block)), d_log(std::move(log))
    {
    }

    //! The backend to make the engine with now: the one asked for, or the CPU once the
    //! GPU ran out of memory.
    gpufft::backend backend() const
    {
        return d_fell_back ? gpufft::backend::cpu : d_requested;
    }
    bool fell_back() const { return d_fell_back; }

    /*!
     * make(backend()), made again on the CPU when a CUDA allocation fails under "auto".
     * Errors other than that propagate unchanged (the block's constructor reports them).
     */
    template <typename Make>
    auto make(Make&& make_with) -> decltype(make_with(gpufft::backend::cpu))
    {
        try {
            return make_with(backend());
        } catch (const detail::cuda_memory_error& e) {
            if (!can_fall_back())
                throw;
            note(e);
        }
        return make_with(backend());
    }

    /*!
     * call() for one frame. Returns true when it ran; false, with `error` set, when the
     * engine refused the frame (std::invalid_argument). Under "auto", a CUDA allocation
     * failure calls to_cpu() (which remakes the engine with backend()) and then call()
     * again. Any other failure throws engine_stopped naming the block and the reason.
     */
    template <typename Call, typename ToCpu>
    bool run(Call&& call, ToCpu&& to_cpu, std::string& error)
    {
        try {
            try {
                call();
                return true;
            } catch (const detail::cuda_memory_error& e) {
                if (!can_fall_back())
                    throw;
                note(e);
            }
            to_cpu();
            call();
            return true;
        } catch (const std::invalid_argument& e) {
            error = e.what();
            return false;
        } catch (const std::exception& e) {
            throw engine_stopped(d_block + ": stopping the stream: " + e.what());
        }
    }

private:
    bool can_fall_back() const
    {
        return d_requested == gpufft::backend::automatic && !d_fell_back;
    }
    void note(const std::exception& e)
    {
        d_fell_back = true;
        log_message(d_log,
                    log_level::warning,
                    d_block + ": the GPU cannot hold this engine (" + e.what() +
                        "); backend \"auto\" continues on the CPU");
    }

    const gpufft::backend d_requested;
    const std::string d_block;
    const log_handler d_log;
    bool d_fell_back = false;
};

} // namespace stream
} // namespace gpufft
} // namespace gr

#endif /* INCLUDED_GPUFFT_STREAM_ENGINE_FAILURE_H */
