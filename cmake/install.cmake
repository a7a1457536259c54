# `cmake --install build --prefix P`: libherd.a, libherd.so.1, herd.h and herd_view.h, the herd program,
# P/lib/pkgconfig/herd.pc and a CMake package (find_package(herd): herd::herd, the shared
# library, and herd::herd_static). docs/library.md says how to use them.
include(CMakePackageConfigHelpers)

set_target_properties(herd PROPERTIES EXPORT_NAME herd_static)
set_target_properties(herd_shared PROPERTIES EXPORT_NAME herd)
install(TARGETS herd herd_shared EXPORT herdTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS herd_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${herd_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/herd)

set(herd_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/herd)
install(EXPORT herdTargets NAMESPACE herd:: DESTINATION ${herd_cmake_dir})
configure_package_config_file(cmake/herdConfig.cmake.in "${CMAKE_CURRENT_BINARY_DIR}/herdConfig.cmake"
                              INSTALL_DESTINATION ${herd_cmake_dir})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/herdConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/herdConfig.cmake" "${CMAKE_CURRENT_BINARY_DIR}/herdConfigVersion.cmake"
        DESTINATION ${herd_cmake_dir})

# pkg-config: -lherd takes the shared library; `pkg-config --static` adds what libherd.a needs.
if(HERD_WITH_OPENCL)
  set(HERD_PC_REQUIRES_PRIVATE "jansson OpenCL")
else()
  set(HERD_PC_REQUIRES_PRIVATE "jansson")
endif()
if(HERD_WITH_MPI)
  string(APPEND HERD_PC_REQUIRES_PRIVATE " ompi-c")
endif()
if(HERD_WITH_HDF5)
  string(APPEND HERD_PC_REQUIRES_PRIVATE " hdf5")
endif()
# The prefix relative to the .pc file, so an installed tree still works where it is moved.
file(RELATIVE_PATH HERD_PC_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(cmake/herd.pc.in "${CMAKE_CURRENT_BINARY_DIR}/herd.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/herd.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
