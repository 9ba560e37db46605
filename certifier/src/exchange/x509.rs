//! Just enough DER to name a certificate on the certificate of a run: its subject, its issuer
//! and the end of its validity.

/// What a certificate says of itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    /// `CN=sandbox.example.test, O=…`, in the certificate's order.
    pub subject: String,
    pub issuer: String,
    /// `2027-02-26 12:00:00 UTC`.
    pub not_after: String,
}

/// One DER element: its tag, its contents and what follows it.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;

/// Reads the names of a DER certificate; `None` when it is not one.
pub fn named(der: &[u8]) -> Option<Named> {
    let (SEQUENCE, certificate, _) = element(der)? else {
        return None;
    };
    let (SEQUENCE, tbs, _) = element(certificate)? else {
        return None;
    };
    let mut rest = tbs;
    // [0] version, optional.
    if rest.first() == Some(&0xa0) {
        rest = element(rest)?.2;
    }
    let (_, _, rest) = element(rest)?; // serial number
    let (_, _, rest) = element(rest)?; // signature algorithm
    let (SEQUENCE, issuer, rest) = element(rest)? else {
        return None;
    };
    let (SEQUENCE, validity, rest) = element(rest)? else {
        return None;
    };
    let (SEQUENCE, subject, _) = element(rest)? else {
        return None;
    };
    let (_, _, after) = element(validity)?; // not before
    let (time_tag, not_after, _) = element(after)?;
    Some(Named {
        subject: name(subject)?,
        issuer: name(issuer)?,
        not_after: time(time_tag, not_after)?,
    })
}

/// An RDNSequence as `KEY=value, …`.
fn name(mut rdns: &[u8]) -> Option<String> {
    let mut parts = Vec::new();
    while !rdns.is_empty() {
        let (SET, mut set, rest) = element(rdns)? else {
            return None;
        };
        rdns = rest;
        while !set.is_empty() {
            let (SEQUENCE, pair, rest) = element(set)? else {
                return None;
            };
            set = rest;
            let (0x06, oid, value) = element(pair)? else {
                return None;
            };
            let (tag, value, _) = element(value)?;
            parts.push(format!("{}={}", attribute(oid), text(tag, value)));
        }
    }
    Some(parts.join(", "))
}

fn attribute(oid: &[u8]) -> String {
    match oid {
        [0x55, 0x04, 0x03] => "CN".into(),
        [0x55, 0x04, 0x06] => "C".into(),
        [0x55, 0x04, 0x07] => "L".into(),
        [0x55, 0x04, 0x08] => "ST".into(),
        [0x55, 0x04, 0x0a] => "O".into(),
        [0x55, 0x04, 0x0b] => "OU".into(),
        [0x55, 0x04, 0x05] => "serialNumber".into(),
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01] => "emailAddress".into(),
        _ => dotted(oid),
    }
}

fn dotted(oid: &[u8]) -> String {
    let mut arcs = Vec::new();
    let mut value: u64 = 0;
    for b in oid {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        }
    }
    arcs.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

fn text(tag: u8, value: &[u8]) -> String {
    match tag {
        // BMPString: UTF-16BE.
        0x1e => {
            let units: Vec<u16> = value
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        _ => String::from_utf8_lossy(value).into_owned(),
    }
}

/// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) as `YYYY-MM-DD HH:MM:SS UTC`.
fn time(tag: u8, value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?;
    let digits = text.strip_suffix('Z')?;
    let full = match (tag, digits.len()) {
        (0x17, 12) => {
            let yy: u32 = digits[..2].parse().ok()?;
            format!("{}{digits}", if yy >= 50 { "19" } else { "20" })
        }
        (0x18, 14) => digits.to_owned(),
        _ => return None,
    };
    if !full.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!(
        "{}-{}-{} {}:{}:{} UTC",
        &full[..4],
        &full[4..6],
        &full[6..8],
        &full[8..10],
        &full[10..12],
        &full[12..14]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certificate(subject: &[(rcgen::DnType, &str)], issuer_name: &str, year: i32) -> Vec<u8> {
        let ca_key = rcgen::KeyPair::generate().expect("a key");
        let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).expect("params");
        ca.distinguished_name = rcgen::DistinguishedName::new();
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, issuer_name);
        ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        let issuer = rcgen::Issuer::new(ca, ca_key);
        let key = rcgen::KeyPair::generate().expect("a key");
        let mut params =
            rcgen::CertificateParams::new(vec!["sandbox.example.test".to_owned()]).expect("params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        for (kind, value) in subject {
            params.distinguished_name.push(kind.clone(), *value);
        }
        params.not_after = rcgen::date_time_ymd(year, 2, 26);
        params
            .signed_by(&key, &issuer)
            .expect("signed")
            .der()
            .to_vec()
    }

    #[test]
    fn names_subject_issuer_and_expiry() {
        let der = certificate(
            &[
                (rcgen::DnType::OrganizationName, "Тендери ТОВ"),
                (rcgen::DnType::CommonName, "sandbox.example.test"),
            ],
            "Private CA",
            2027,
        );
        let named = named(&der).expect("a certificate");
        assert_eq!(named.subject, "O=Тендери ТОВ, CN=sandbox.example.test");
        assert_eq!(named.issuer, "CN=Private CA");
        assert_eq!(named.not_after, "2027-02-26 00:00:00 UTC");
    }

    #[test]
    fn a_far_expiry_is_generalized_time() {
        let der = certificate(&[(rcgen::DnType::CommonName, "x")], "CA", 2051);
        assert_eq!(
            named(&der).map(|n| n.not_after),
            Some("2051-02-26 00:00:00 UTC".to_owned())
        );
    }

    #[test]
    fn other_attributes_are_dotted() {
        assert_eq!(dotted(&[0x55, 0x04, 0x61]), "2.5.4.97");
        assert_eq!(attribute(&[0x2b, 0x06, 0x01]), "1.3.6.1");
    }

    #[test]
    fn anything_else_is_not_a_certificate() {
        assert_eq!(named(b""), None);
        assert_eq!(named(b"not der at all"), None);
        assert_eq!(named(&[0x30, 0x82, 0xff]), None);
    }
}
