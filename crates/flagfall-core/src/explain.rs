//! Rule explanations (in progress).
