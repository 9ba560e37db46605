//! A target the harness cannot certify at all (nothing listening, a web page, another service)
//! stops the run before any scenario with one line on stderr and exit code 2.
use std::{
    io::{Read as _, Write as _},
    net::TcpListener,
    process::{Command, Output},
};

/// A local server answering every request with `response`.
fn answering(response: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let _ = stream.write_all(response.as_bytes());
        }
    });
    format!("http://{addr}")
}

fn certify(base_url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tender-certify"))
        .args(["--base-url", base_url, "--seed", "1"])
        .env_remove("TENDER_CERTIFY_BASE_URL")
        .output()
        .unwrap()
}

/// Exit code 2, one line on stderr that holds `expected`, and no scenario run.
fn assert_refused(output: &Output, base_url: &str, expected: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with(&format!("tender-certify: the target at {base_url} ")),
        "{stderr}"
    );
    assert!(lines[0].contains(expected), "{stderr}");
    assert!(!stdout.contains("Scenario"), "{stdout}");
    assert!(!stdout.contains("passed"), "{stdout}");
}

/// Certifies a target answering every request with `response`: refused, with `expected` on
/// stderr (see [`assert_refused`]). The run's output, for what a test checks further.
fn refused_answering(response: &'static str, expected: &str) -> Output {
    let base_url = answering(response);
    let output = certify(&base_url);
    assert_refused(&output, &base_url, expected);
    output
}

#[test]
fn nothing_listening_is_unreachable() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base_url = format!("http://127.0.0.1:{port}");
    let output = certify(&base_url);
    assert_refused(&output, &base_url, "cannot be reached");
}

#[test]
fn a_web_page_is_not_the_api() {
    refused_answering(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: 27\r\nconnection: close\r\n\r\n<html><body>hi</body></html",
        "with text/html; charset=utf-8, not JSON",
    );
}

#[test]
fn another_json_service_is_not_the_api() {
    let output = refused_answering(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 17\r\nconnection: close\r\n\r\n{\"hello\":\"world\"}",
        "is not a Tender Procurement Service Interface 2.3: GET",
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("without a `data` array"));
}

#[test]
fn an_error_status_is_not_the_api() {
    refused_answering(
        "HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found",
        "answered 404 Not Found (text/plain)",
    );
}
