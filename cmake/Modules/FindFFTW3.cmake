# Finds FFTW3 in single and double precision with their threads libraries.
#
# Defines the imported targets FFTW3::fftw3f and FFTW3::fftw3 (each with its _threads
# library) and FFTW3_FOUND. Uses plain find_path/find_library rather than pkg-config so
# that an FFTW unpacked under another prefix (CMAKE_PREFIX_PATH) is found as well.

find_path(FFTW3_INCLUDE_DIR NAMES fftw3.h)
find_library(FFTW3F_LIBRARY NAMES fftw3f)
find_library(FFTW3F_THREADS_LIBRARY NAMES fftw3f_threads)
find_library(FFTW3_LIBRARY NAMES fftw3)
find_library(FFTW3_THREADS_LIBRARY NAMES fftw3_threads)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(
    FFTW3
    REQUIRED_VARS FFTW3_INCLUDE_DIR FFTW3F_LIBRARY FFTW3F_THREADS_LIBRARY FFTW3_LIBRARY
                  FFTW3_THREADS_LIBRARY)

if(FFTW3_FOUND)
    foreach(p fftw3f fftw3)
        string(TOUPPER ${p} P)
        if(NOT TARGET FFTW3::${p})
            add_library(FFTW3::${p} INTERFACE IMPORTED)
            set_target_properties(
                FFTW3::${p}
                PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${FFTW3_INCLUDE_DIR}"
                           INTERFACE_LINK_LIBRARIES "${${P}_THREADS_LIBRARY};${${P}_LIBRARY}")
        endif()
    endforeach()
endif()
mark_as_advanced(FFTW3_INCLUDE_DIR FFTW3F_LIBRARY FFTW3F_THREADS_LIBRARY FFTW3_LIBRARY
                 FFTW3_THREADS_LIBRARY)
