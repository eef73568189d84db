# Install layout, the CMake and pkg-config packages, the manifest and CPack
# (docs/DEPLOYMENT.md). Included last, so that the manifest step runs after
# every other install rule (policy CMP0082 keeps install rules in the order
# they are declared across directories).
include(CMakePackageConfigHelpers)

set(ANYDNN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/anydnn)
install(EXPORT anydnnTargets NAMESPACE anydnn:: DESTINATION ${ANYDNN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/package/anydnnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/anydnnConfig.cmake
                              INSTALL_DESTINATION ${ANYDNN_CMAKE_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# 1.x programs build against any 1.y >= the version they ask for.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/anydnnConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/anydnnConfig.cmake ${PROJECT_BINARY_DIR}/anydnnConfigVersion.cmake
        DESTINATION ${ANYDNN_CMAKE_DIR})

file(RELATIVE_PATH ANYDNN_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ANYDNN_PC_TO_PREFIX "${ANYDNN_PC_TO_PREFIX}")
set(ANYDNN_PC_DL "")
if(CMAKE_DL_LIBS)
  set(ANYDNN_PC_DL "-l${CMAKE_DL_LIBS}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/package/anydnn.pc.in ${PROJECT_BINARY_DIR}/anydnn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/anydnn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
              ${PROJECT_SOURCE_DIR}/docs/TROUBLESHOOTING.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(ANYDNN_MANIFEST ${CMAKE_INSTALL_DATADIR}/anydnn/MANIFEST.sha256)
install(CODE "set(ANYDNN_MANIFEST \"${ANYDNN_MANIFEST}\")
              include(\"${PROJECT_SOURCE_DIR}/cmake/package/write_manifest.cmake\")")

# cpack (from the build directory): anydnn-<version>-<os>-<arch>.tar.gz and
# .zip, each with a .sha256 beside it.
string(TOLOWER "${CMAKE_SYSTEM_NAME}" ANYDNN_OS)
set(CPACK_PACKAGE_NAME anydnn)
set(CPACK_PACKAGE_VENDOR anydnn)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_FILE_NAME anydnn-${PROJECT_VERSION}-${ANYDNN_OS}-${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_GENERATOR TGZ ZIP)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
