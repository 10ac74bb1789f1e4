//! Division by a divisor fixed in advance, by a multiplication: the hot loops that
//! split an index into parts (a disk block and its slot, a stabiliser chain's orbit
//! slots) divide by the same few numbers millions of times, and a 64-bit division
//! costs tens of cycles where a multiplication costs a few.

/// A divisor with its reciprocal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Divisor {
    /// The divisor (at least 1).
    pub(crate) value: u64,
    /// `floor((2^64 - 1) / value)`.
    reciprocal: u64,
}

impl Divisor {
    /// The divisor `value` (at least 1).
    pub(crate) fn new(value: u64) -> Divisor {
        Divisor {
            value,
            reciprocal: u64::MAX / value,
        }
    }

    /// `(n / value, n % value)`.
    #[inline(always)]
    pub(crate) fn div_rem(self, n: u64) -> (u64, u64) {
        // The quotient by the reciprocal is exact or one short.
        let mut quotient = ((u128::from(n) * u128::from(self.reciprocal)) >> 64) as u64;
        let mut rest = n - quotient * self.value;
        if rest >= self.value {
            quotient += 1;
            rest -= self.value;
        }
        (quotient, rest)
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_quotient_by_reciprocal_is_exact(value in 1u64..u64::MAX, n in any::<u64>()) {
            prop_assert_eq!(Divisor::new(value).div_rem(n), (n / value, n % value));
        }

        #[test]
        fn small_divisors_and_large_numbers(value in 1u64..100, n in (u64::MAX - 1000)..=u64::MAX) {
            prop_assert_eq!(Divisor::new(value).div_rem(n), (n / value, n % value));
        }
    }
}
