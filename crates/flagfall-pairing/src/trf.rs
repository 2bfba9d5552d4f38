//! trf (in progress)
