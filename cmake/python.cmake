# The Python package (python/) as a wheel with libherd.so.1 inside, and installed by
# cmake --install. `cmake --build build --target python-wheel` writes
# build/python-wheel/herd-VERSION-TAG.whl (pip wheel, no network: Debian's setuptools and wheel);
# `pip install --no-index` of it into a venv gives a package that imports with no $HERD_LIB.
# cmake --install puts the package into P/lib/python3.X/dist-packages (HERD_PYTHON_DIR) with
# _installed.py naming the installed libherd.so.1. python/README.md says how to use both.
set(herd_python /usr/bin/python3 CACHE FILEPATH "the Python the package is built and installed for")
execute_process(COMMAND ${herd_python} -c "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"
                OUTPUT_VARIABLE herd_python_version OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE herd_python_rc)
if(NOT herd_python_rc EQUAL 0)
  set(herd_python_version 3)
endif()
set(HERD_PYTHON_DIR "lib/python${herd_python_version}/dist-packages"
    CACHE STRING "where cmake --install puts the Python package, under the prefix")

set(herd_wheel_dir "${CMAKE_BINARY_DIR}/python-wheel")
file(GLOB herd_python_sources CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/python/herd/*.py")
add_custom_target(python-wheel
  COMMAND ${CMAKE_COMMAND} -E rm -rf "${herd_wheel_dir}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${herd_wheel_dir}/src/herd"
  COMMAND ${CMAKE_COMMAND} -E copy ${herd_python_sources} "${herd_wheel_dir}/src/herd/"
  COMMAND ${CMAKE_COMMAND} -E copy "${CMAKE_CURRENT_SOURCE_DIR}/python/pyproject.toml"
          "${CMAKE_CURRENT_SOURCE_DIR}/python/setup.py" "${CMAKE_CURRENT_SOURCE_DIR}/python/README.md"
          "${herd_wheel_dir}/src/"
  COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:herd_shared>" "${herd_wheel_dir}/src/herd/libherd.so.1"
  COMMAND ${herd_python} -m pip wheel --quiet --no-build-isolation --no-deps --no-index
          --wheel-dir "${herd_wheel_dir}" "${herd_wheel_dir}/src"
  DEPENDS herd_shared
  COMMENT "Building the Python wheel with libherd.so.1 inside (build/python-wheel)"
  VERBATIM)

install(FILES ${herd_python_sources} DESTINATION "${HERD_PYTHON_DIR}/herd")
install(CODE "file(WRITE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${HERD_PYTHON_DIR}/herd/_installed.py\"
  \"\\\"\\\"\\\"Written by cmake --install: where it put libherd.so.1.\\\"\\\"\\\"\\n\\nLIBRARY = \\\"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libherd.so.1\\\"\\n\")")
