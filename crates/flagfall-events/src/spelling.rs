//! How the enumerated values of an event are written: each type lists its variants and,
//! for each, its spellings (the first is the one printed). `FromStr` and, with the `clap`
//! feature, `clap::ValueEnum` are both derived from that one list, so the command line, the
//! paper-mode result lines and the library accept exactly the same words.

use crate::event::EventError;

/// A type whose values are written as words.
pub(crate) trait Spelled: Sized + Copy + 'static {
    /// Every value, in the order listings show them.
    const ALL: &'static [Self];
    /// What the value is (for error messages): `format`, `result`, ...
    const WHAT: &'static str;
    /// What would be accepted, for error messages.
    const EXPECTED: &'static str;
    /// The spellings of this value; the first is the canonical one.
    fn spellings(self) -> &'static [&'static str];
    /// A short description for help texts.
    fn help(self) -> &'static str;
}

/// Read a value from any of its spellings (ASCII case ignored, surrounding space trimmed).
pub(crate) fn parse<T: Spelled>(text: &str) -> Result<T, EventError> {
    let t = text.trim();
    T::ALL
        .iter()
        .copied()
        .find(|v| v.spellings().iter().any(|s| s.eq_ignore_ascii_case(t)))
        .ok_or_else(|| EventError::BadValue {
            what: T::WHAT,
            value: text.to_string(),
            expected: T::EXPECTED,
        })
}

/// `FromStr` and (with the `clap` feature) `clap::ValueEnum` from the [`Spelled`] list.
macro_rules! spelled {
    ($t:ty) => {
        impl std::str::FromStr for $t {
            type Err = $crate::event::EventError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::spelling::parse(s)
            }
        }

        #[cfg(feature = "clap")]
        impl clap::ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                <$t as $crate::spelling::Spelled>::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                use $crate::spelling::Spelled as _;
                let spellings = self.spellings();
                Some(
                    clap::builder::PossibleValue::new(spellings[0])
                        .aliases(spellings[1..].iter().copied())
                        .help(self.help()),
                )
            }
        }
    };
}

pub(crate) use spelled;
