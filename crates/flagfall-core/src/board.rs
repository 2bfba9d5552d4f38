//! board (in progress)
