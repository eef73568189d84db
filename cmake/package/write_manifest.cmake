# Run by `cmake --install` after every other file is in place: writes
# share/anydnn/MANIFEST.sha256, one "<sha256>  <path relative to the prefix>"
# line per installed file (sha256sum -c reads it from the prefix), which
# anydnn-doctor checks for missing, truncated and modified files.
# In: ANYDNN_MANIFEST (the manifest's path below the prefix) and the
# install script's CMAKE_INSTALL_MANIFEST_FILES (absolute, with DESTDIR).
set(root "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set(manifest "${root}/${ANYDNN_MANIFEST}")
set(lines "")
list(REMOVE_DUPLICATES CMAKE_INSTALL_MANIFEST_FILES)
list(SORT CMAKE_INSTALL_MANIFEST_FILES)
foreach(file IN LISTS CMAKE_INSTALL_MANIFEST_FILES)
  if(IS_SYMLINK "${file}" OR IS_DIRECTORY "${file}" OR file STREQUAL manifest)
    continue()  # a symlink's target is listed itself
  endif()
  file(SHA256 "${file}" hash)
  file(RELATIVE_PATH rel "${root}" "${file}")
  string(APPEND lines "${hash}  ${rel}\n")
endforeach()
file(WRITE "${manifest}" "${lines}")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${manifest}")
message(STATUS "Manifest: ${manifest}")
