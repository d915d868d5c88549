# Large out-of-card FFT engine (issue 5).
gpufft_add_test(test_large_fft_cpu SOURCES large/test_large_fft_cpu.cc)
gpufft_add_test(test_large_fft_cuda SOURCES large/test_large_fft_cuda.cc GPU)
# spectrum_integrator (|X|^2 integration): host path on the CPU; the fused GPU path
# cross-checked against it (skips without a GPU).
gpufft_add_test(test_spectrum_integrator_cpu SOURCES large/test_spectrum_integrator_cpu.cc)
gpufft_add_test(test_spectrum_integrator_cuda SOURCES large/test_spectrum_integrator_cuda.cc
                GPU)
# input_type: integer I/Q converted on the host (CPU), and on the fused GPU path copied
# as it is and converted by the window kernel, against host conversion (skips).
gpufft_add_test(test_spectrum_integrator_iq SOURCES large/test_spectrum_integrator_iq.cc)
gpufft_add_test(test_spectrum_integrator_iq_cuda
                SOURCES large/test_spectrum_integrator_iq_cuda.cc GPU)
# The Stockham stages of the evict-first FFT (host reference of the kernels' math).
gpufft_add_test(test_stockham SOURCES large/test_stockham.cc)
# The two-kernel pass FFT (host reference of the kernels' index math and stages).
gpufft_add_test(test_four_step SOURCES large/test_four_step.cc)
# large_fft_options::devices: the checks that need no GPU and a model of the multi-GPU
# executor's ordering (CPU); the multi-executor paths on the GPU, one GPU standing in
# for two (skips without a GPU).
gpufft_add_test(test_large_fft_devices SOURCES large/test_large_fft_devices.cc)
gpufft_add_test(test_large_fft_multigpu_cuda SOURCES large/test_large_fft_multigpu_cuda.cc
                GPU)
# The peer-exchange schedule of several GPUs: layout, pairings and the schedule
# emulated on the host against FFTW (CPU).
gpufft_add_test(test_peer_exchange SOURCES large/test_peer_exchange.cc)
# `ctest -L gpu-multi` selects the tests that use several GPUs where they exist.
set_property(TEST test_large_fft_multigpu_cuda APPEND PROPERTY LABELS gpu-multi)
# spectrum_integrator's `devices` when a frame fits each device: whole frames dealt to
# the GPUs against one GPU; one GPU standing in for two in the plain gpu test, [0, 1]
# in the gpu-multi one (exit 77 with fewer than two GPUs).
gpufft_add_test(test_spectrum_integrator_devices_cuda
                SOURCES large/test_spectrum_integrator_devices_cuda.cc GPU)
add_test(NAME test_spectrum_integrator_multigpu_cuda
         COMMAND test_spectrum_integrator_devices_cuda two_gpus)
set_tests_properties(test_spectrum_integrator_multigpu_cuda PROPERTIES
                     SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "gpu;gpu-multi")
# The bookkeeping of whole frames on several GPUs (store, add or max per device, merge,
# frames found bad late) with host models of the devices (CPU).
gpufft_add_test(test_frame_dealer SOURCES large/test_frame_dealer.cc)
