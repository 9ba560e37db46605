//! The subject of the register a code names: its internal id, the code the register shows and
//! its legal name, all following from the code alone, so that a broker's tests see the same
//! subject on every run and every server. The subjects of upstream's own documentation and
//! sandbox keep the answers upstream gave for them.
//!
//! A legal entity (an EDRPOU code) shows its code; an individual entrepreneur (an IPN or a
//! passport) shows none, as upstream's sandbox answered, since the register keeps a person's
//! number confidential.

use super::{Code, Kind};
use sha2::{Digest, Sha256};

/// Where the register shows a subject; upstream's answers carried this address.
const REGISTER: &str = "https://zqedr-api.nais.gov.ua/1.0/subjects";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// `x_edrInternalId`.
    pub internal_id: u64,
    /// `identification.id`: the EDRPOU code of a legal entity, none for a person.
    pub id: Option<String>,
    pub legal_name: String,
}

impl Subject {
    /// `identification.url`.
    pub fn url(&self) -> String {
        format!("{REGISTER}/{}", self.internal_id)
    }
}

/// Legal entities of upstream's documentation and sandbox data (internal id, legal name).
const KNOWN: [(&str, u64, &str); 4] = [
    (
        "14360570",
        2842335,
        "АКЦІОНЕРНЕ ТОВАРИСТВО КОМЕРЦІЙНИЙ БАНК \"ПРИВАТБАНК\"",
    ),
    ("00037256", 999186, "ДЕРЖАВНЕ УПРАВЛІННЯ СПРАВАМИ"),
    ("13313462", 2471627, "КОМУНАЛЬНЕ ПІДПРИЄМСТВО \"ШКОЛЯР\""),
    (
        "21725150",
        2485671,
        "ЗАКЛАД\" ЗАГАЛЬНООСВІТНЯ ШКОЛА I-III СТУПЕНІВ №10 ВІННИЦЬКОЇ МІСЬКОЇ РАДИ\"",
    ),
];

const FORMS: [&str; 8] = [
    "ТОВАРИСТВО З ОБМЕЖЕНОЮ ВІДПОВІДАЛЬНІСТЮ",
    "ПРИВАТНЕ ПІДПРИЄМСТВО",
    "АКЦІОНЕРНЕ ТОВАРИСТВО",
    "КОМУНАЛЬНЕ ПІДПРИЄМСТВО",
    "ДЕРЖАВНЕ ПІДПРИЄМСТВО",
    "ФЕРМЕРСЬКЕ ГОСПОДАРСТВО",
    "ВИРОБНИЧИЙ КООПЕРАТИВ",
    "ТОВАРИСТВО З ДОДАТКОВОЮ ВІДПОВІДАЛЬНІСТЮ",
];

const ROOTS: [&str; 16] = [
    "СВІТАНОК",
    "ДНІПРО",
    "КАРПАТИ",
    "ПОДІЛЛЯ",
    "ЛІСОВИК",
    "ЗОРЯ",
    "КАЛИНА",
    "ВОЛИНЬ",
    "ПРОМІНЬ",
    "ОБРІЙ",
    "ДЕСНА",
    "ВЕРХОВИНА",
    "ТАВРІЯ",
    "ПОЛІССЯ",
    "СЛАВУТИЧ",
    "ЯТРАНЬ",
];

const TRADES: [&str; 16] = [
    "АГРО",
    "БУД",
    "ТРАНС",
    "ПОСТАЧ",
    "СЕРВІС",
    "ТЕХНО",
    "ПРОМ",
    "ХАРЧ",
    "ЕНЕРГО",
    "МЕД",
    "ЛІС",
    "ТОРГ",
    "ДРУК",
    "ПАПІР",
    "ОФІС",
    "ХІМ",
];

/// Surnames that are the same for a man and a woman.
const SURNAMES: [&str; 16] = [
    "КОВАЛЕНКО",
    "ШЕВЧУК",
    "БОНДАРЕНКО",
    "ТКАЧУК",
    "МЕЛЬНИК",
    "КРАВЧУК",
    "ОЛІЙНИК",
    "ЛИСЕНКО",
    "ПОЛІЩУК",
    "САВЧЕНКО",
    "ГАВРИЛЮК",
    "ДАНИЛЮК",
    "КОВАЛЬЧУК",
    "ПЕТРЕНКО",
    "МАРЧЕНКО",
    "КЛИМЕНКО",
];

const MEN: [&str; 8] = [
    "ІВАН",
    "ОЛЕКСАНДР",
    "ПЕТРО",
    "АНДРІЙ",
    "ВАСИЛЬ",
    "МИКОЛА",
    "ТАРАС",
    "ДМИТРО",
];

const WOMEN: [&str; 8] = [
    "ОЛЕНА",
    "ОКСАНА",
    "НАТАЛІЯ",
    "ІРИНА",
    "МАРІЯ",
    "ТЕТЯНА",
    "СВІТЛАНА",
    "ГАННА",
];

/// A father's name as a son's and a daughter's patronymic.
const PATRONYMICS: [(&str, &str); 8] = [
    ("ІВАНОВИЧ", "ІВАНІВНА"),
    ("ОЛЕКСАНДРОВИЧ", "ОЛЕКСАНДРІВНА"),
    ("ПЕТРОВИЧ", "ПЕТРІВНА"),
    ("АНДРІЙОВИЧ", "АНДРІЇВНА"),
    ("ВАСИЛЬОВИЧ", "ВАСИЛІВНА"),
    ("МИКОЛАЙОВИЧ", "МИКОЛАЇВНА"),
    ("ТАРАСОВИЧ", "ТАРАСІВНА"),
    ("ДМИТРОВИЧ", "ДМИТРІВНА"),
];

/// Internal ids made up here have eight digits, so none is one of upstream's (seven).
const MADE_UP_IDS: std::ops::Range<u64> = 10_000_000..100_000_000;

fn pick<'a>(from: &[&'a str], byte: u8) -> &'a str {
    from[usize::from(byte) % from.len()]
}

/// The subject `code` names.
pub fn of(code: &Code) -> Subject {
    if let Some((_, internal_id, name)) = KNOWN.iter().find(|(c, ..)| *c == code.as_str()) {
        return Subject {
            internal_id: *internal_id,
            id: Some(code.as_str().to_string()),
            legal_name: name.to_string(),
        };
    }
    let digest = Sha256::digest(format!("edr {}", code.as_str()).as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let span = MADE_UP_IDS.end - MADE_UP_IDS.start;
    let internal_id = MADE_UP_IDS.start + u64::from_be_bytes(first) % span;
    let (a, b, c, d) = (digest[8], digest[9], digest[10], digest[11]);
    match code.kind() {
        Kind::Edrpou => Subject {
            internal_id,
            id: Some(code.as_str().to_string()),
            legal_name: format!(
                "{} \"{}-{}\"",
                pick(&FORMS, a),
                pick(&ROOTS, b),
                pick(&TRADES, c)
            ),
        },
        Kind::Ipn | Kind::Passport => {
            // An IPN's ninth digit is odd for a man, even for a woman.
            let man = match code.kind() {
                Kind::Ipn => code.as_str().as_bytes()[8] % 2 == 1,
                _ => d % 2 == 1,
            };
            let (son, daughter) = PATRONYMICS[usize::from(c) % PATRONYMICS.len()];
            let (given, patronymic) = match man {
                true => (pick(&MEN, b), son),
                false => (pick(&WOMEN, b), daughter),
            };
            Subject {
                internal_id,
                id: None,
                legal_name: format!("{} {given} {patronymic}", pick(&SURNAMES, a)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(text: &str) -> Subject {
        of(&Code::any(text).expect("well-formed"))
    }

    #[test]
    fn upstream_s_subjects_keep_upstream_s_answers() {
        let bank = subject("14360570");
        assert_eq!(bank.internal_id, 2842335);
        assert_eq!(bank.id.as_deref(), Some("14360570"));
        assert_eq!(
            bank.legal_name,
            "АКЦІОНЕРНЕ ТОВАРИСТВО КОМЕРЦІЙНИЙ БАНК \"ПРИВАТБАНК\""
        );
        assert_eq!(
            bank.url(),
            "https://zqedr-api.nais.gov.ua/1.0/subjects/2842335"
        );
        assert_eq!(subject("00037256").internal_id, 999186);
    }

    #[test]
    fn any_other_subject_follows_from_its_code_alone() {
        let entity = subject("31415926");
        assert_eq!(entity, subject("31415926"), "the same on every call");
        assert_eq!(entity.id.as_deref(), Some("31415926"));
        assert!(MADE_UP_IDS.contains(&entity.internal_id));
        let (form, name) = entity.legal_name.split_once(" \"").expect("a quoted name");
        assert!(FORMS.contains(&form), "{}", entity.legal_name);
        assert!(name.ends_with('"') && name.contains('-'), "{name}");
        assert_ne!(subject("31415927").internal_id, entity.internal_id);
    }

    #[test]
    fn a_person_shows_no_code_and_an_ipn_says_whether_a_man_or_a_woman() {
        let man = subject("2894801234");
        assert_eq!(man.id, None);
        let parts: Vec<&str> = man.legal_name.split(' ').collect();
        assert_eq!(parts.len(), 3, "{}", man.legal_name);
        assert!(
            MEN.contains(&parts[1]) && parts[2].ends_with("ВИЧ"),
            "{:?}",
            parts
        );
        let woman = subject("2894801224");
        assert!(woman.legal_name.ends_with("ВНА"), "{}", woman.legal_name);
        let booklet = subject("СН012345");
        assert_eq!(booklet.id, None);
        assert_eq!(booklet, subject("сн012345"));
    }
}
