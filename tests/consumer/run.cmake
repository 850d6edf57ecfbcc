# ctest test `consumer_package`: installs the built jetfuse into a fresh prefix, then configures,
# builds and runs tests/consumer against that prefix only, as a user of the package would.
#   cmake -DJF_BUILD_DIR=... -DJF_WORK_DIR=... -DJF_GENERATOR=... -DJF_CXX_COMPILER=...
#         -DJF_BUILD_TYPE=... [-DJF_CUDA_ROOT=...] -P run.cmake
foreach(v JF_BUILD_DIR JF_WORK_DIR JF_GENERATOR JF_CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: ${v} is not set")
  endif()
endforeach()
if(NOT JF_BUILD_TYPE)
  set(JF_BUILD_TYPE Release)
endif()
set(prefix "${JF_WORK_DIR}/prefix")
set(build "${JF_WORK_DIR}/build")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer_package: ${what} failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE "${JF_WORK_DIR}")
step("installing jetfuse" ${CMAKE_COMMAND} --install "${JF_BUILD_DIR}" --prefix "${prefix}")

set(extra)
if(JF_CUDA_ROOT)
  list(APPEND extra "-DCUDAToolkit_ROOT=${JF_CUDA_ROOT}")
endif()
# Only the fresh prefix may provide jetfuse: no package registries, no build tree.
step("configuring the consumer"
     ${CMAKE_COMMAND} -S "${CMAKE_CURRENT_LIST_DIR}" -B "${build}" -G "${JF_GENERATOR}"
     "-DCMAKE_CXX_COMPILER=${JF_CXX_COMPILER}" "-DCMAKE_BUILD_TYPE=${JF_BUILD_TYPE}"
     "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
     -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF ${extra})
file(STRINGS "${build}/CMakeCache.txt" dir_line REGEX "^jetfuse_DIR:")
string(REGEX REPLACE "^jetfuse_DIR:[A-Z]+=" "" found_dir "${dir_line}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${found_dir}" real_found)
string(FIND "${real_found}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "consumer_package: jetfuse was found in '${found_dir}', not in the install prefix '${prefix}'")
endif()
step("building the consumer" ${CMAKE_COMMAND} --build "${build}")
step("running the consumer" "${build}/app")
