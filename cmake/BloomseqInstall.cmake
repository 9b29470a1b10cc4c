# What `cmake --install` puts in a prefix, and the Debian packages `cpack` makes from it.
#   component tools  bin/blast-bloom, bin/facs, bin/bloomseq-model, bin/bloomseq-calibrate     -> package bloomseq
#   component dev    static libraries, headers, lib/cmake/bloomseq, lib/pkgconfig/bloomseq.pc -> package bloomseq-dev
# A consumer: find_package(bloomseq) + target_link_libraries(app PRIVATE bloomseq::bloomseq), or
# `pkg-config --cflags --libs bloomseq`; examples/ is such a consumer and CI builds it against an install.
include(CMakePackageConfigHelpers)

# bloomseq::bloomseq, the one target a consumer links: every component library.
set(bloomseq_libraries bloomseq_cli bloomseq_blast bloomseq_facs bloomseq_io bloomseq_cuda_emu bloomseq_core)
if(TARGET bloomseq_cuda)
  list(PREPEND bloomseq_libraries bloomseq_cuda)
endif()
add_library(bloomseq INTERFACE)
target_link_libraries(bloomseq INTERFACE ${bloomseq_libraries})
add_library(bloomseq::bloomseq ALIAS bloomseq)

install(TARGETS bloomseq ${bloomseq_libraries} EXPORT bloomseqTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The public headers: <bloomseq/bloomseq.hpp> and every bloomseq header it includes, directly or not. The others
# (the tools' option parsing and progress, backend internals, part files, calibration, CUDA host plumbing) are
# private: the tools, tests and benchmarks use them from the source tree, and they are not installed.
set(bloomseq_header_roots ${PROJECT_SOURCE_DIR}/lib/include ${PROJECT_SOURCE_DIR}/cuda/include)
file(GLOB_RECURSE bloomseq_all_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lib/include/*.hpp
     ${PROJECT_SOURCE_DIR}/cuda/include/*.hpp)  # any header added or removed: configure again
set(bloomseq_public_headers "")
set(pending "bloomseq/bloomseq.hpp")
while(pending)
  list(POP_FRONT pending header)
  if(header IN_LIST bloomseq_public_headers OR header STREQUAL "bloomseq/version.hpp")
    continue()  # version.hpp is generated (installed below)
  endif()
  set(found "")
  foreach(root IN LISTS bloomseq_header_roots)
    if(EXISTS ${root}/${header})
      set(found ${root}/${header})
      break()
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "public header ${header}: not found under lib/include or cuda/include")
  endif()
  list(APPEND bloomseq_public_headers ${header})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${found})  # its includes may change
  file(STRINGS ${found} includes REGEX "^#include \"bloomseq/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" included "${line}")
    list(APPEND pending ${included})
  endforeach()
endwhile()
foreach(header IN LISTS bloomseq_public_headers)
  foreach(root IN LISTS bloomseq_header_roots)
    if(EXISTS ${root}/${header})
      get_filename_component(subdir ${header} DIRECTORY)
      install(FILES ${root}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${subdir} COMPONENT dev)
      break()
    endif()
  endforeach()
endforeach()
list(LENGTH bloomseq_public_headers bloomseq_public_count)
list(LENGTH bloomseq_all_headers bloomseq_all_count)
message(STATUS "bloomseq: ${bloomseq_public_count} public headers installed of ${bloomseq_all_count}")
install(FILES ${PROJECT_BINARY_DIR}/include/bloomseq/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/bloomseq COMPONENT dev)

set(bloomseq_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/bloomseq)
install(EXPORT bloomseqTargets NAMESPACE bloomseq:: DESTINATION ${bloomseq_cmake_dir} COMPONENT dev)
if(TARGET bloomseq_cuda)
  set(BLOOMSEQ_PACKAGE_WITH_CUDA ON)
else()
  set(BLOOMSEQ_PACKAGE_WITH_CUDA OFF)
endif()
if(ISAL_FOUND)
  set(BLOOMSEQ_PACKAGE_WITH_ISAL ON)
else()
  set(BLOOMSEQ_PACKAGE_WITH_ISAL OFF)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/templates/bloomseqConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/bloomseqConfig.cmake
                              INSTALL_DESTINATION ${bloomseq_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/bloomseqConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/bloomseqConfig.cmake
              ${PROJECT_BINARY_DIR}/package/bloomseqConfigVersion.cmake
        DESTINATION ${bloomseq_cmake_dir} COMPONENT dev)

# pkg-config: the archives in link order (static libraries: users before what they use).
set(BLOOMSEQ_PC_LIBS "")
foreach(lib IN LISTS bloomseq_libraries)
  string(APPEND BLOOMSEQ_PC_LIBS " -l${lib}")
endforeach()
set(BLOOMSEQ_PC_REQUIRES "")
if(ISAL_FOUND)
  set(BLOOMSEQ_PC_REQUIRES " libisal")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/bloomseq.pc.in ${PROJECT_BINARY_DIR}/package/bloomseq.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/bloomseq.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# Debian's packaging conventions: a copyright file and a changelog in each package's doc folder.
foreach(component tools dev)
  if(component STREQUAL "tools")
    set(pkg bloomseq)
  else()
    set(pkg bloomseq-dev)
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/templates/copyright DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${pkg}
          COMPONENT ${component})
  install(FILES ${PROJECT_BINARY_DIR}/package/changelog.gz DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${pkg}
          COMPONENT ${component})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/bloomseq COMPONENT tools)
string(TIMESTAMP BLOOMSEQ_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${PROJECT_SOURCE_DIR}/cmake/templates/changelog.in ${PROJECT_BINARY_DIR}/package/changelog @ONLY)
file(REMOVE ${PROJECT_BINARY_DIR}/package/changelog.gz)
execute_process(COMMAND gzip -9n -k -f ${PROJECT_BINARY_DIR}/package/changelog)

# cpack -G DEB (run in the build folder): bloomseq_VERSION_ARCH.deb and bloomseq-dev_VERSION_ARCH.deb.
set(CPACK_PACKAGE_NAME bloomseq)
set(CPACK_PACKAGE_VENDOR "the bloomseq authors")
set(CPACK_PACKAGE_CONTACT "bloomseq maintainers <maintainers@bloomseq.invalid>")
set(CPACK_COMPONENTS_ALL tools dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://bloomseq.invalid/")
set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME bloomseq)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)  # Depends: from the binaries' shared libraries (dpkg-shlibdeps)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "DNA screening with Bloom filters on CPUs and GPUs
blast-bloom runs the Bloom-filter seeding stages of Mercury BLAST with exact
verification and ungapped extension and writes BLAST tabular output; facs
classifies reads against per-reference Bloom filters; bloomseq-model and
bloomseq-calibrate expose the performance model that picks the parameters.")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME bloomseq-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libhts-dev, zlib1g-dev, libcxxopts-dev, pkg-config")
if(ISAL_FOUND)
  string(APPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ", libisal-dev")
endif()
set(CPACK_DEBIAN_DEV_DESCRIPTION "bloomseq library: headers, static libraries, CMake and pkg-config files
The host library of the bloomseq tools: sequence input, 2-bit encoding, H3
hashing, Bloom filters, the blast-bloom and facs pipelines and the
performance model.")
include(CPack)
