//! The game manager's side of the protocol: one HTTP POST with a message, its reply.
//!
//! A deliberately small HTTP/1.0 client over `std::net` (the request, then the reply
//! read to the end of the connection), since a game manager only ever sends one short
//! message to a known player on a local or nearby host.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Sends `message` to the player at `address` and returns the body of its reply; fails
/// on a connection error, a timeout or a status other than 200.
pub fn post(address: &str, message: &str, timeout: Duration) -> Result<String, String> {
    let socket: SocketAddr = address
        .to_socket_addrs()
        .map_err(|e| format!("{address}: {e}"))?
        .next()
        .ok_or_else(|| format!("{address}: no such address"))?;
    let timeout = timeout.max(Duration::from_millis(1));
    let mut stream = TcpStream::connect_timeout(&socket, timeout)
        .map_err(|e| format!("{address}: cannot connect: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST / HTTP/1.0\r\nHost: {address}\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("{address}: cannot send: {e}"))?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            format!("{address}: no reply within {:.1} s", timeout.as_secs_f64())
        }
        _ => format!("{address}: cannot read the reply: {e}"),
    })?;
    let reply = String::from_utf8_lossy(&reply);
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{address}: a reply without headers"))?;
    let status = head.split_whitespace().nth(1).unwrap_or("");
    if status != "200" {
        return Err(format!("{address}: status {status}: {}", body.trim()));
    }
    Ok(body.trim().to_owned())
}
