int ds_pch_anchor;  // cmake/pch.cmake: the object library that compiles a group's precompiled header
