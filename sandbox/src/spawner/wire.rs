//! What the server and the spawner say to each other: one message per packet on a unix `SOCK_SEQPACKET`
//! pair (kept boundaries, and an end seen when the other side is gone), JSON, with the command's output
//! descriptors passed alongside (`SCM_RIGHTS`).

use std::io::{IoSlice, IoSliceMut};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

use nix::sys::socket::{
    recvmsg, sendmsg, setsockopt, socketpair, sockopt, AddressFamily, ControlMessage, ControlMessageOwned, MsgFlags,
    SockFlag, SockType,
};
use serde::{Deserialize, Serialize};

use crate::Policy;

/// Largest message either side sends or takes (the socket buffers are raised to hold it).
pub(crate) const MAX_MESSAGE: usize = 4 << 20;
/// Most descriptors one message carries (a request's stdout and stderr).
const MAX_FDS: usize = 4;

/// One command to start. Its stdout and stderr are the two descriptors sent with it; stdin is
/// `/dev/null`. It gets its own process group; `env` is all of its environment.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Request {
    pub id: u64,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// `None`: run unconfined (no sandbox here, and a person approved that).
    pub policy: Option<Policy>,
}

/// What the spawner answers.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Reply {
    /// Request `id` runs as process `pid` (its process group too); the program was executed.
    Started { id: u64, pid: i32 },
    /// Request `id` did not start.
    Failed { id: u64, error: String },
    /// Process `pid` ended with this raw wait status.
    Exited { pid: i32, status: i32 },
}

/// A connected pair with room for [`MAX_MESSAGE`] in each direction (best effort: a bigger request
/// fails to send, and its caller spawns without the spawner).
pub(crate) fn pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let (a, b) = socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)?;
    for socket in [&a, &b] {
        let _ = setsockopt(socket, sockopt::SndBuf, &MAX_MESSAGE);
        let _ = setsockopt(socket, sockopt::RcvBuf, &MAX_MESSAGE);
    }
    Ok((a, b))
}

pub(crate) fn send<T: Serialize>(socket: &OwnedFd, message: &T, fds: &[RawFd]) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    let iov = [IoSlice::new(&bytes)];
    let rights = [ControlMessage::ScmRights(fds)];
    let cmsgs: &[ControlMessage] = if fds.is_empty() { &[] } else { &rights };
    loop {
        match sendmsg::<()>(socket.as_raw_fd(), &iov, cmsgs, MsgFlags::empty(), None) {
            Ok(_) => return Ok(()),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The next message and the descriptors that came with it (close-on-exec); `None` when the other
/// side has closed its end (no message is empty). A message that cannot be read is an
/// `InvalidData` error, after which the next one can be.
pub(crate) fn recv<T: for<'de> Deserialize<'de>>(
    socket: &OwnedFd,
    buffer: &mut [u8],
) -> std::io::Result<Option<(T, Vec<OwnedFd>)>> {
    let mut space = nix::cmsg_space!([RawFd; MAX_FDS]);
    let (len, fds) = loop {
        let mut iov = [IoSliceMut::new(buffer)];
        match recvmsg::<()>(socket.as_raw_fd(), &mut iov, Some(&mut space), MsgFlags::MSG_CMSG_CLOEXEC) {
            Ok(msg) => {
                let mut fds = Vec::new();
                for cmsg in msg.cmsgs()? {
                    if let ControlMessageOwned::ScmRights(received) = cmsg {
                        // SAFETY: the kernel just installed these descriptors in this process for us.
                        fds.extend(received.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
                    }
                }
                if msg.flags.intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC) {
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a message was cut short"));
                }
                break (msg.bytes, fds);
            }
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    };
    if len == 0 {
        return Ok(None);
    }
    let message =
        serde_json::from_slice(&buffer[..len]).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    Ok(Some((message, fds)))
}
