//! An activity worker that tries to escape its sandbox, one way per input, and completes with
//! what it got: `got: ...` if the capability worked, `denied: ...` with the error if not.
//!
//! | input | attempt |
//! | --- | --- |
//! | `read-root` | list `/` |
//! | `read-passwd` | read `/etc/passwd` |
//! | `list-cwd` | list `.` |
//! | `write` | create and write `escape.txt` |
//! | `env` | every environment variable and argument |
//! | `tcp:ADDR` | connect a TCP stream to `ADDR` (such as `127.0.0.1:8080`) |
//! | `udp` | bind a UDP socket on `127.0.0.1:0` and send a datagram to itself |
//! | `dns` | resolve `localhost` |
//! | `spawn` | run `/bin/sh -c true` |
//! | `http:URL` | `GET URL` (`http://authority/path` or `https://...`) through `wasi:http`: `got: STATUS BODY` |
//! | `exit` | `std::process::exit(3)`, which ends the call (the task fails); Rust's std reports it through WASI 0.2's `exit` as a bare failure, status 1 |
//! | `exit-code` | `wasi:cli/exit.exit-with-code(3)`: the host sees status 3 |

use std::io::Write as _;
use std::net::{TcpStream, ToSocketAddrs, UdpSocket};

use weft_guest::{ActivityTask, Outcome};

weft_guest::activity_worker!(run);

/// Tries what the input names.
pub fn run(task: &ActivityTask) -> Outcome {
    let input = task.input.as_deref().unwrap_or_default();
    let got = match input {
        "read-root" => list("/"),
        "read-passwd" => std::fs::read_to_string("/etc/passwd").map_err(|e| e.to_string()),
        "list-cwd" => list("."),
        "write" => std::fs::File::create("escape.txt")
            .and_then(|mut file| file.write_all(b"escaped"))
            .map(|()| "wrote escape.txt".to_owned())
            .map_err(|e| e.to_string()),
        "env" => Ok(format!(
            "vars {:?}, args {:?}",
            std::env::vars().collect::<Vec<_>>(),
            std::env::args().collect::<Vec<_>>()
        )),
        "udp" => udp(),
        "dns" => ("localhost", 80)
            .to_socket_addrs()
            .map(|addrs| format!("{:?}", addrs.collect::<Vec<_>>()))
            .map_err(|e| e.to_string()),
        "spawn" => std::process::Command::new("/bin/sh")
            .args(["-c", "true"])
            .status()
            .map(|status| status.to_string())
            .map_err(|e| e.to_string()),
        "exit" => std::process::exit(3),
        "exit-code" => {
            wasip2::cli::exit::exit_with_code(3);
            unreachable!("exit-with-code returns to nobody")
        }
        _ => {
            if let Some(addr) = input.strip_prefix("tcp:") {
                TcpStream::connect(addr)
                    .map(|stream| format!("connected to {:?}", stream.peer_addr()))
                    .map_err(|e| e.to_string())
            } else if let Some(url) = input.strip_prefix("http:") {
                http_get(url)
            } else {
                Err(format!("unknown input {input:?}"))
            }
        }
    };
    Outcome::Completed(Some(match got {
        Ok(what) => format!("got: {what}"),
        Err(error) => format!("denied: {error}"),
    }))
}

/// The names in directory `path`.
fn list(path: &str) -> Result<String, String> {
    let names: Result<Vec<String>, std::io::Error> = std::fs::read_dir(path).and_then(|entries| {
        entries
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect()
    });
    names
        .map(|names| names.join(" "))
        .map_err(|e| e.to_string())
}

fn udp() -> Result<String, String> {
    let socket = UdpSocket::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let me = socket.local_addr().map_err(|e| e.to_string())?;
    socket.send_to(b"escaped", me).map_err(|e| e.to_string())?;
    Ok(format!("bound {me} and sent"))
}

/// `GET url` (`http` or `https`) through `wasi:http`: the status and body, or the error code.
fn http_get(url: &str) -> Result<String, String> {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{Fields, IncomingBody, OutgoingRequest, Scheme};
    use wasip2::io::streams::StreamError;

    let (scheme, rest) = match url.split_once("://") {
        Some(("http", rest)) => (Scheme::Http, rest),
        Some(("https", rest)) => (Scheme::Https, rest),
        _ => return Err("only http:// and https:// URLs".to_owned()),
    };
    let (authority, path) = match rest.split_once('/') {
        Some((authority, path)) => (authority, format!("/{path}")),
        None => (rest, "/".to_owned()),
    };
    let request = OutgoingRequest::new(Fields::new());
    let set = [
        request.set_scheme(Some(&scheme)),
        request.set_authority(Some(authority)),
        request.set_path_with_query(Some(&path)),
    ];
    if set.iter().any(Result::is_err) {
        return Err(format!("invalid URL {url}"));
    }
    let pending = outgoing_handler::handle(request, None).map_err(|e| format!("{e:?}"))?;
    let response = loop {
        match pending.get() {
            Some(response) => break response,
            None => pending.subscribe().block(),
        }
    };
    let response = response
        .map_err(|()| "the response was taken already".to_owned())?
        .map_err(|e| format!("{e:?}"))?;
    let status = response.status();
    let body = response.consume().map_err(|()| "no body")?;
    let mut bytes = Vec::new();
    {
        let stream = body.stream().map_err(|()| "no body stream")?;
        loop {
            match stream.blocking_read(64 << 10) {
                Ok(chunk) => bytes.extend_from_slice(&chunk),
                Err(StreamError::Closed) => break,
                Err(StreamError::LastOperationFailed(e)) => return Err(e.to_debug_string()),
            }
        }
    }
    IncomingBody::finish(body);
    Ok(format!("{status} {}", String::from_utf8_lossy(&bytes)))
}
