#include "test_harness.h"
GPUFFT_TEST_MAIN()
