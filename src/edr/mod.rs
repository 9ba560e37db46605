//! The EDR test double: what upstream's EDR integration service answered when a broker asked
//! whether a bidder's code is in the state register of legal entities (EDR), from test data a
//! broker can rely on. No HTTP here: the service is `api::edr`.
//!
//! Every well-formed code is registered, under a legal name and an internal id that follow
//! from the code alone ([`subjects`]); a few reserved codes answer each of upstream's other
//! branches ([`RESERVED`]); on a sandbox, answers set per code on demand come first
//! ([`answers`]).

pub mod answers;
pub mod subjects;

pub use answers::Answers;

/// How a code names a subject of the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A legal entity's EDRPOU code: 8 digits.
    Edrpou,
    /// An individual entrepreneur's tax number (IPN): 10 digits.
    Ipn,
    /// An individual entrepreneur's passport: a booklet's two Cyrillic letters and six digits,
    /// or an ID card's nine digits.
    Passport,
}

/// A well-formed code, as the register files it (a passport's letters upper-case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    text: String,
    kind: Kind,
}

fn digits(text: &str, count: usize) -> bool {
    text.len() == count && text.bytes().all(|b| b.is_ascii_digit())
}

fn cyrillic_letter(c: char) -> bool {
    c.is_alphabetic() && ('\u{0400}'..='\u{04ff}').contains(&c)
}

impl Code {
    /// The `id` of a request: an EDRPOU code or an IPN.
    pub fn id(text: &str) -> Option<Code> {
        let kind = match text.len() {
            8 => Kind::Edrpou,
            10 => Kind::Ipn,
            _ => return None,
        };
        digits(text, text.len()).then(|| Code {
            text: text.to_string(),
            kind,
        })
    }

    /// The `passport` of a request.
    pub fn passport(text: &str) -> Option<Code> {
        let chars: Vec<char> = text.chars().collect();
        let booklet = chars.len() == 8
            && chars[..2].iter().all(|c| cyrillic_letter(*c))
            && chars[2..].iter().all(char::is_ascii_digit);
        if !(booklet || digits(text, 9)) {
            return None;
        }
        Some(Code {
            text: text.to_uppercase(),
            kind: Kind::Passport,
        })
    }

    /// Either form: what an answer set on demand is for.
    pub fn any(text: &str) -> Option<Code> {
        Code::id(text).or_else(|| Code::passport(text))
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }
}

/// A registration status, as upstream's service named EDR's states (its spellings kept: a
/// client compares them as they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Registered,
    BeingTerminated,
    Terminated,
    Cancelled,
    BankruptcyFiled,
    BankruptcyReorganization,
    InvalidRegistration,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Registered,
        Status::BeingTerminated,
        Status::Terminated,
        Status::Cancelled,
        Status::BankruptcyFiled,
        Status::BankruptcyReorganization,
        Status::InvalidRegistration,
    ];

    /// `registrationStatus`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Registered => "registered",
            Status::BeingTerminated => "beingTerminated",
            Status::Terminated => "terminated",
            Status::Cancelled => "cancelled",
            Status::BankruptcyFiled => "banckruptcyFiled",
            Status::BankruptcyReorganization => "banckruptcyReorganization",
            Status::InvalidRegistration => "invalidRegistraton",
        }
    }

    /// `registrationStatusDetails`: the register's own words for the state.
    pub fn details(self) -> &'static str {
        match self {
            Status::Registered => "зареєстровано",
            Status::BeingTerminated => "в стані припинення",
            Status::Terminated => "припинено",
            Status::Cancelled => "скасовано",
            Status::BankruptcyFiled => "порушено справу про банкрутство",
            Status::BankruptcyReorganization => "порушено справу про банкрутство (санація)",
            Status::InvalidRegistration => {
                "зареєстровано, свідоцтво про державну реєстрацію недійсне"
            }
        }
    }
}

/// How long upstream's service said to wait when EDR throttled it, in its documented answer.
pub const RETRY_AFTER: u32 = 26;

/// What the service answers for a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// 200: the subject, in this status.
    Found(Status),
    /// 404: not in the register.
    NotFound,
    /// 429 with `Retry-After`: EDR throttled the service.
    Throttled { retry_after: u32 },
    /// 403: EDR did not answer the service in time.
    Timeout,
    /// 403: EDR answered the service 502 (disabled or being upgraded).
    Unavailable,
}

/// The names the testing API gives answers by, beside the statuses' own.
const NOT_FOUND: &str = "not-found";
const THROTTLED: &str = "throttled";
const TIMEOUT: &str = "timeout";
const UNAVAILABLE: &str = "unavailable";

impl Answer {
    /// Every name an answer is set by.
    pub fn names() -> Vec<&'static str> {
        let mut names: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
        names.extend([NOT_FOUND, THROTTLED, TIMEOUT, UNAVAILABLE]);
        names
    }

    /// The answer of this name; a throttled one says `retry_after`.
    pub fn named(name: &str, retry_after: u32) -> Option<Answer> {
        if let Some(status) = Status::ALL.into_iter().find(|s| s.name() == name) {
            return Some(Answer::Found(status));
        }
        match name {
            NOT_FOUND => Some(Answer::NotFound),
            THROTTLED => Some(Answer::Throttled { retry_after }),
            TIMEOUT => Some(Answer::Timeout),
            UNAVAILABLE => Some(Answer::Unavailable),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Answer::Found(status) => status.name(),
            Answer::NotFound => NOT_FOUND,
            Answer::Throttled { .. } => THROTTLED,
            Answer::Timeout => TIMEOUT,
            Answer::Unavailable => UNAVAILABLE,
        }
    }
}

/// The codes reserved for every answer but "registered", so that a platform can try each
/// branch. They are IPNs beginning `99000`: certification runs and the benchmark make up
/// 8-digit codes only, so none of theirs is ever one of these. Their last digits say what
/// they answer: EDR's state number (cancelled is its −1), or the HTTP status the service met.
pub const RESERVED: [(&str, Answer); 10] = [
    ("9900000002", Answer::Found(Status::BeingTerminated)),
    ("9900000003", Answer::Found(Status::Terminated)),
    ("9900000004", Answer::Found(Status::BankruptcyFiled)),
    (
        "9900000005",
        Answer::Found(Status::BankruptcyReorganization),
    ),
    ("9900000006", Answer::Found(Status::InvalidRegistration)),
    ("9900000009", Answer::Found(Status::Cancelled)),
    ("9900000404", Answer::NotFound),
    (
        "9900000429",
        Answer::Throttled {
            retry_after: RETRY_AFTER,
        },
    ),
    ("9900000502", Answer::Unavailable),
    ("9900000504", Answer::Timeout),
];

/// What the register answers for `code` when nothing was set for it.
pub fn built_in(code: &Code) -> Answer {
    RESERVED
        .iter()
        .find(|(reserved, _)| *reserved == code.as_str())
        .map_or(Answer::Found(Status::Registered), |(_, answer)| *answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_read_as_the_register_files_them() {
        assert_eq!(Code::id("14360570").map(|c| c.kind()), Some(Kind::Edrpou));
        assert_eq!(Code::id("2894801234").map(|c| c.kind()), Some(Kind::Ipn));
        for bad in [
            "",
            "123",
            "1436057",
            "143605701",
            "14360570a",
            "１４３６０５７０",
        ] {
            assert_eq!(Code::id(bad), None, "{bad}");
        }
        let booklet = Code::passport("сн012345").expect("a booklet");
        assert_eq!(
            (booklet.as_str(), booklet.kind()),
            ("СН012345", Kind::Passport)
        );
        assert!(Code::passport("123456789").is_some(), "an ID card");
        for bad in [
            "CH012345",
            "СН01234",
            "СНН012345",
            "12345678901",
            "ПАСПОРТ",
            "С1012345",
        ] {
            assert_eq!(Code::passport(bad), None, "{bad}");
        }
        assert_eq!(
            Code::any("СН012345").map(|c| c.kind()),
            Some(Kind::Passport)
        );
    }

    #[test]
    fn every_code_is_registered_but_the_reserved_ones() {
        let answer = |text: &str| built_in(&Code::any(text).expect("well-formed"));
        assert_eq!(answer("14360570"), Answer::Found(Status::Registered));
        assert_eq!(answer("99000000"), Answer::Found(Status::Registered));
        assert_eq!(answer("9900000003"), Answer::Found(Status::Terminated));
        assert_eq!(answer("9900000404"), Answer::NotFound);
        assert_eq!(answer("9900000429"), Answer::Throttled { retry_after: 26 });
        for (code, reserved) in RESERVED {
            assert_eq!(Code::id(code).map(|c| c.kind()), Some(Kind::Ipn), "{code}");
            assert_eq!(answer(code), reserved);
        }
    }

    #[test]
    fn every_answer_is_set_by_its_name() {
        for name in Answer::names() {
            let answer = Answer::named(name, 5).expect("named");
            assert_eq!(answer.name(), name);
        }
        assert_eq!(
            Answer::named("throttled", 5),
            Some(Answer::Throttled { retry_after: 5 })
        );
        assert_eq!(Answer::named("bankrupt", 5), None);
    }
}
