//! Fixed-width unsigned integers of `64 * N` bits for edge weights and dual variables.
//!
//! The Dutch edge weights pack every pairing criterion into one integer, highest priority
//! in the highest bits, so they need hundreds of bits for large tournaments. Arithmetic
//! wraps modulo `2^(64 N)`; the engine chooses `N` so that real values never wrap.

use std::cmp::Ordering;

/// An unsigned integer of `64 * N` bits, little-endian words.
#[derive(Clone, Copy, Eq, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

/// Word-by-word from the most significant word: the matcher compares sums of duals with
/// edge weights, which usually differ in a high word, and an inlined loop avoids a call
/// to `memcmp` for every comparison.
impl<const N: usize> PartialEq for Wide<N> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        let mut i = N;
        while i > 0 {
            i -= 1;
            if self.0[i] != other.0[i] {
                return false;
            }
        }
        true
    }
}

/// Hashes the words (consistent with the word-wise equality above).
impl<const N: usize> std::hash::Hash for Wide<N> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for &w in &self.0 {
            state.write_u64(w);
        }
    }
}

/// A fast non-cryptographic hasher for the matcher's table of distinct weights
/// (multiply-rotate over 64-bit words, as in rustc's `FxHasher`); the keys are computed
/// by the engine, not chosen by an adversary.
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const N: usize> Ord for Wide<N> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..N).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        Ordering::Equal
    }
}

impl<const N: usize> Wide<N> {
    /// Zero.
    pub const ZERO: Self = Wide([0; N]);

    /// A small value.
    #[must_use]
    pub fn from_u64(v: u64) -> Self {
        let mut w = [0; N];
        w[0] = v;
        Wide(w)
    }

    /// True if zero (checked from the most significant word, where non-zero edge
    /// weights have their bits).
    #[inline]
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.0.iter().rev().all(|&w| w == 0)
    }

    /// `self += other` (wrapping).
    #[inline]
    pub fn add_assign(&mut self, other: &Self) {
        let mut carry = false;
        for i in 0..N {
            let (s, c) = self.0[i].carrying_add(other.0[i], carry);
            self.0[i] = s;
            carry = c;
        }
    }

    /// `self -= other` (wrapping).
    #[inline]
    pub fn sub_assign(&mut self, other: &Self) {
        let mut borrow = false;
        for i in 0..N {
            let (d, b) = self.0[i].borrowing_sub(other.0[i], borrow);
            self.0[i] = d;
            borrow = b;
        }
    }

    /// `self + b - c` (wrapping), in one pass over the words.
    #[must_use]
    #[inline]
    pub fn add_sub(&self, b: &Self, c: &Self) -> Self {
        let mut r = [0; N];
        let mut carry = false;
        let mut borrow = false;
        for i in 0..N {
            let (s, c1) = self.0[i].carrying_add(b.0[i], carry);
            let (d, b1) = s.borrowing_sub(c.0[i], borrow);
            r[i] = d;
            carry = c1;
            borrow = b1;
        }
        Wide(r)
    }

    /// `self + other`.
    #[must_use]
    #[inline]
    pub fn add(mut self, other: &Self) -> Self {
        self.add_assign(other);
        self
    }

    /// `self - other`.
    #[must_use]
    #[inline]
    pub fn sub(mut self, other: &Self) -> Self {
        self.sub_assign(other);
        self
    }

    /// `self -= v` for a small `v` (wrapping).
    pub fn sub_small(&mut self, v: u64) {
        self.sub_assign(&Self::from_u64(v));
    }

    /// `self <<= bits` (bits shifted out are lost).
    #[inline]
    pub fn shl_assign(&mut self, bits: u32) {
        if bits == 0 {
            return;
        }
        let words = (bits / 64) as usize;
        let rest = bits % 64;
        if words >= N {
            *self = Self::ZERO;
            return;
        }
        if rest == 0 {
            for i in (words..N).rev() {
                self.0[i] = self.0[i - words];
            }
        } else {
            for i in (words + 1..N).rev() {
                self.0[i] = (self.0[i - words] << rest) | (self.0[i - words - 1] >> (64 - rest));
            }
            self.0[words] = self.0[0] << rest;
        }
        for w in &mut self.0[..words] {
            *w = 0;
        }
    }

    /// `self += v` for a small `v` (wrapping).
    #[inline]
    pub fn add_small(&mut self, v: u64) {
        self.add_shifted(v, 0);
    }

    /// `self += v << pos` (wrapping).
    #[inline]
    pub fn add_shifted(&mut self, v: u64, pos: u32) {
        let word = (pos / 64) as usize;
        if word >= N {
            return;
        }
        let off = pos % 64;
        let (s, mut carry) = self.0[word].overflowing_add(v << off);
        self.0[word] = s;
        let mut i = word + 1;
        if i < N {
            let hi = if off == 0 { 0 } else { v >> (64 - off) };
            let (s1, c1) = self.0[i].overflowing_add(hi);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            self.0[i] = s2;
            carry = c1 || c2;
            i += 1;
        }
        while carry && i < N {
            let (s, c) = self.0[i].overflowing_add(1);
            self.0[i] = s;
            carry = c;
            i += 1;
        }
    }

    /// `self >> 1`.
    #[must_use]
    #[inline]
    pub fn half(mut self) -> Self {
        for i in 0..N {
            let hi = if i + 1 < N { self.0[i + 1] << 63 } else { 0 };
            self.0[i] = (self.0[i] >> 1) | hi;
        }
        self
    }

    /// Twice the value.
    #[must_use]
    pub fn double(self) -> Self {
        self.add(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::Wide;

    #[test]
    fn shifts_carry_across_words() {
        let mut a = Wide::<3>::from_u64(0b1011);
        a.shl_assign(62);
        assert_eq!(a.0, [0b11 << 62, 0b10, 0]);
        a.shl_assign(64);
        assert_eq!(a.0, [0, 0b11 << 62, 0b10]);
        assert_eq!(a.half().0, [0, 0b11 << 61, 0b1]);
    }

    #[test]
    fn shifts_match_multiplication_by_powers_of_two() {
        // Every shift of a value with bits in all words, against repeated doubling.
        let v = Wide::<3>([0x8123_4567_89ab_cdef, 0x0fed_cba9_8765_4321, 0x1]);
        for bits in 0..200u32 {
            let mut a = v;
            a.shl_assign(bits);
            let mut b = v;
            for _ in 0..bits {
                b = b.double();
            }
            assert_eq!(a.0, b.0, "shift by {bits}");
        }
    }

    #[test]
    fn add_shifted_matches_shift_then_add() {
        for &(v, pos) in &[
            (1u64, 0u32),
            (3, 63),
            (u64::MAX, 64),
            (u64::MAX, 70),
            (5, 127),
            (9, 190),
        ] {
            let mut a = Wide::<3>([u64::MAX, 12, 1]);
            let mut b = a;
            a.add_shifted(v, pos);
            let mut t = Wide::<3>::from_u64(v);
            t.shl_assign(pos);
            b.add_assign(&t);
            assert_eq!(a, b, "v {v} pos {pos}");
        }
    }

    #[test]
    fn add_sub_is_add_then_sub() {
        let a = Wide::<3>([u64::MAX, 3, 9]);
        let b = Wide::<3>([2, u64::MAX, 0]);
        let c = Wide::<3>([5, 7, 4]);
        assert_eq!(a.add_sub(&b, &c), a.add(&b).sub(&c));
        assert_eq!(c.add_sub(&c, &c), c);
    }

    #[test]
    fn add_small_carries_through_full_words() {
        let mut a = Wide::<3>([u64::MAX, u64::MAX, 5]);
        a.add_small(2);
        assert_eq!(a.0, [1, 0, 6]);
        let mut b = Wide::<3>([7, 0, 0]);
        b.add_small(u64::MAX);
        assert_eq!(b.0, [6, 1, 0]);
    }

    #[test]
    fn add_and_sub_borrow_across_words() {
        let mut a = Wide::<2>([u64::MAX, 0]);
        a.add_small(1);
        assert_eq!(a.0, [0, 1]);
        a.sub_small(2);
        assert_eq!(a.0, [u64::MAX - 1, 0]);
        let mut b = Wide::<2>::ZERO;
        b.add_shifted(1, 64);
        assert!(b > a);
        assert_eq!(b.sub(&Wide::from_u64(1)), Wide([u64::MAX, 0]));
    }
}
