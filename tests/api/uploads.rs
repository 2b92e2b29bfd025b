//! Uploads and attachments as a client uses them: `POST /user_uploads`, downloading through
//! `/user_uploads/...` (credentials, temporary URLs, ranges, headers), linking uploads in
//! messages (`has:attachment`), `GET`/`DELETE /attachments`, `attachment` events, cleanup and
//! bad input.

use std::path::PathBuf;

use hyper::Method;
use serde_json::{Value, json};

use crate::backup_restore::{backup, write_config};
use crate::support::{Org, Reply, TestServer, TestUser, basic, body, org, org_with, raw};

const BOUNDARY: &str = "outpost-test-boundary";

/// A `multipart/form-data` body with these file parts `(field, filename, bytes)` and fields.
fn multipart(files: &[(&str, &str, &[u8])], fields: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in fields {
        out.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (field, filename, data) in files {
        out.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; \
                 filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}

async fn post_body(srv: &TestServer, who: Option<&TestUser>, content: Vec<u8>) -> Reply {
    let mut req = raw(Method::POST, "/api/v1/user_uploads").header(
        "content-type",
        format!("multipart/form-data; boundary={BOUNDARY}"),
    );
    if let Some(u) = who {
        req = req.header("authorization", basic(&u.email, &u.api_key));
    }
    srv.send(req.body(body(content)).unwrap()).await
}

/// Uploads one file as the Python client does (the field named after the file).
async fn upload(srv: &TestServer, who: &TestUser, name: &str, data: &[u8]) -> Reply {
    post_body(srv, Some(who), multipart(&[(name, name, data)], &[])).await
}

/// Uploads one file and returns its `url`.
pub(crate) async fn upload_ok(srv: &TestServer, who: &TestUser, name: &str, data: &[u8]) -> String {
    let r = upload(srv, who, name, data).await;
    let b = r.assert_success("POST /user_uploads");
    assert_eq!(b["uri"], b["url"]);
    b["url"].as_str().unwrap().to_string()
}

pub(crate) async fn download(
    srv: &TestServer,
    who: Option<&TestUser>,
    url: &str,
    range: Option<&str>,
) -> Reply {
    let mut req = raw(Method::GET, url);
    if let Some(u) = who {
        req = req.header("authorization", basic(&u.email, &u.api_key));
    }
    if let Some(r) = range {
        req = req.header("range", r);
    }
    srv.send(req.body(body("")).unwrap()).await
}

async fn attachments(o: &Org, who: &TestUser) -> Value {
    let r = o.srv.get("/api/v1/attachments", who, &[]).await;
    r.assert_success("GET /attachments").clone()
}

fn uploads_dir(srv: &TestServer) -> PathBuf {
    srv.dir.path().join("data").join("uploads")
}

/// Every stored file under the uploads directory (not the temporary ones).
fn stored_files(srv: &TestServer) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(subs) = std::fs::read_dir(uploads_dir(srv)) else {
        return out;
    };
    for sub in subs.flatten() {
        if sub.file_name() == "tmp" {
            continue;
        }
        for f in std::fs::read_dir(sub.path()).unwrap().flatten() {
            out.push(f.path());
        }
    }
    out
}

fn header<'a>(r: &'a Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

#[tokio::test]
async fn upload_link_and_download_follow_message_access() {
    let o = org().await;
    o.channel(&o.alice, "files", &[&o.alice, &o.bob], &[]).await;
    let url = upload_ok(&o.srv, &o.alice, "notes.txt", b"hello uploads").await;
    assert!(url.starts_with("/user_uploads/1/"), "{url}");
    assert!(url.ends_with("/notes.txt"), "{url}");
    // The uploader may download it at once; nobody else yet.
    let r = download(&o.srv, Some(&o.alice), &url, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(&r.raw[..], b"hello uploads");
    assert_eq!(header(&r, "content-type"), "text/plain");
    assert_eq!(
        header(&r, "content-disposition"),
        "inline; filename=\"notes.txt\"; filename*=UTF-8''notes.txt"
    );
    assert!(header(&r, "cache-control").starts_with("private"));
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    download(&o.srv, Some(&o.bob), &url, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    download(&o.srv, None, &url, None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Linking it in a message shares it with whoever can read the message.
    let id = o
        .send_channel(&o.alice, "files", "t", &format!("[notes.txt]({url})"))
        .await;
    let r = download(&o.srv, Some(&o.bob), &url, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(&r.raw[..], b"hello uploads");
    download(&o.srv, Some(&o.guest), &url, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    // The message counts as having an attachment (from the record), but not an image.
    let narrow = json!([{"operator": "has", "operand": "attachment"}]);
    assert_eq!(o.ids(&o.bob, narrow).await, vec![id]);
    let narrow = json!([{"operator": "has", "operand": "image"}]);
    assert!(o.ids(&o.bob, narrow).await.is_empty());
    // A message merely mentioning the path of a file nobody shared links nothing.
    let b = attachments(&o, &o.alice).await;
    assert_eq!(b["upload_space_used"], 13);
    let list = b["attachments"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["name"], "notes.txt");
    assert_eq!(list[0]["size"], 13);
    assert_eq!(
        format!("/user_uploads/{}", list[0]["path_id"].as_str().unwrap()),
        url
    );
    assert_eq!(list[0]["messages"][0]["id"], id);
    assert!(
        attachments(&o, &o.bob).await["attachments"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// A PNG of `w` x `h` pixels.
pub(crate) fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// A PNG that declares `w` x `h` pixels in its header and holds no pixel data.
pub(crate) fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut chunk = b"IHDR".to_vec();
    chunk.extend_from_slice(&w.to_be_bytes());
    chunk.extend_from_slice(&h.to_be_bytes());
    chunk.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut crc = 0xffff_ffffu32;
    for &b in &chunk {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend_from_slice(&13u32.to_be_bytes());
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&(!crc).to_be_bytes());
    out
}

/// An animated GIF of `frames` frames.
pub(crate) fn gif(frames: usize) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = image::codecs::gif::GifEncoder::new(&mut out);
        for i in 0..frames {
            let img = image::RgbaImage::from_pixel(40, 30, image::Rgba([i as u8 * 50, 0, 0, 255]));
            enc.encode_frame(image::Frame::new(img)).unwrap();
        }
    }
    out
}

async fn rendered(o: &Org, who: &TestUser, id: i64) -> String {
    let r = o.srv.get(&format!("/api/v1/messages/{id}"), who, &[]).await;
    r.assert_success("GET /messages/{message_id}")["message"]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn images_count_for_has_image() {
    let o = org().await;
    o.channel(&o.alice, "pics", &[&o.alice], &[]).await;
    let url = upload_ok(&o.srv, &o.alice, "photo.png", &png(1680, 1120)).await;
    let r = download(&o.srv, Some(&o.alice), &url, None).await;
    assert_eq!(header(&r, "content-type"), "image/png");
    let id = o
        .send_channel(&o.alice, "pics", "t", &format!("[photo.png]({url})"))
        .await;
    let narrow = json!([{"operator": "has", "operand": "image"}]);
    assert_eq!(o.ids(&o.alice, narrow).await, vec![id]);
    // Upstream's inline preview follows the paragraph linking the image: its thumbnail, with
    // the original's size and type.
    let path = url.strip_prefix("/user_uploads/").unwrap();
    assert_eq!(
        rendered(&o, &o.alice, id).await,
        format!(
            "<p><a href=\"{url}\">photo.png</a></p>\n<div class=\"message_inline_image\">\
             <a href=\"{url}\" title=\"photo.png\"><img data-original-content-type=\"image/png\" \
             data-original-dimensions=\"1680x1120\" \
             src=\"/user_uploads/thumbnail/{path}/840x560.webp\"></a></div>"
        )
    );
    let (_, state) = o.register(&o.alice, &[]).await;
    assert_eq!(state["realm_inline_image_preview"], true);
    assert_eq!(
        state["server_thumbnail_formats"],
        json!([{"name": "840x560.webp", "max_width": 840, "max_height": 560,
                "format": "webp", "animated": false}])
    );
}

#[tokio::test]
async fn thumbnails_are_made_once_and_guarded_like_their_image() {
    let o = org().await;
    o.channel(&o.alice, "pics", &[&o.alice], &[]).await;
    let url = upload_ok(&o.srv, &o.alice, "wide.png", &png(1680, 560)).await;
    let path = url.strip_prefix("/user_uploads/").unwrap();
    let thumb = format!("/user_uploads/thumbnail/{path}/840x560.webp");
    // Not linked yet: only the uploader may see it, and its thumbnail.
    let r = download(&o.srv, Some(&o.alice), &thumb, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "content-type"), "image/webp");
    let img = image::load_from_memory(&r.raw).unwrap();
    assert_eq!((img.width(), img.height()), (840, 280));
    let stored: Vec<_> = walk(&o.srv.dir.path().join("data/thumbnails"));
    assert_eq!(stored.len(), 1, "{stored:?}");
    // Served again from the stored file.
    let again = download(&o.srv, Some(&o.alice), &thumb, None).await;
    assert_eq!(again.raw, r.raw);
    download(&o.srv, Some(&o.bob), &thumb, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    download(&o.srv, None, &thumb, None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    // Only the advertised format, and only of real uploads.
    for bad in [
        format!("/user_uploads/thumbnail/{path}/100x100.webp"),
        format!("/user_uploads/thumbnail/{path}/..%2F..%2Fetc%2Fpasswd"),
        "/user_uploads/thumbnail/1/ab/nothing/x.png/840x560.webp".to_string(),
        "/user_uploads/thumbnail/840x560.webp".to_string(),
    ] {
        download(&o.srv, Some(&o.alice), &bad, None)
            .await
            .assert_error(404, "BAD_REQUEST");
    }
    // Once a message in a channel Bob can read links it, Bob may see both.
    o.subscribe(&o.bob, &["pics"], &[]).await;
    o.send_channel(&o.alice, "pics", "t", &format!("[w]({url})"))
        .await;
    assert_eq!(
        download(&o.srv, Some(&o.bob), &thumb, None).await.status,
        200
    );
    // Deleting the upload deletes its thumbnail.
    let r = o.srv.get("/api/v1/attachments", &o.alice, &[]).await;
    let aid = r.assert_success("GET /attachments")["attachments"][0]["id"]
        .as_i64()
        .unwrap();
    o.srv
        .delete(&format!("/api/v1/attachments/{aid}"), &o.alice, &[])
        .await
        .assert_success("DELETE /attachments/{attachment_id}");
    assert!(walk(&o.srv.dir.path().join("data/thumbnails")).is_empty());
}

/// Regular files under `dir` (none if it does not exist), without the temporary directory.
fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "tmp") {
                out.extend(walk(&p));
            }
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test]
async fn hostile_and_animated_images_are_not_thumbnailed() {
    let o = org().await;
    o.channel(&o.alice, "pics", &[&o.alice], &[]).await;
    // A tiny file declaring 100000 x 100000 pixels: stored as a file, never decoded.
    let bomb = upload_ok(&o.srv, &o.alice, "bomb.png", &png_header(100_000, 100_000)).await;
    let fake = upload_ok(&o.srv, &o.alice, "fake.jpg", b"not an image").await;
    let anim = upload_ok(&o.srv, &o.alice, "anim.gif", &gif(3)).await;
    let id = o
        .send_channel(
            &o.alice,
            "pics",
            "t",
            &format!("[b]({bomb})\n\n[f]({fake})\n\n[a]({anim})"),
        )
        .await;
    // No preview of what cannot be decoded; an animation is previewed as itself.
    assert_eq!(
        rendered(&o, &o.alice, id).await,
        format!(
            "<p><a href=\"{bomb}\">b</a></p>\n<p><a href=\"{fake}\">f</a></p>\n\
             <p><a href=\"{anim}\">a</a></p>\n<div class=\"message_inline_image\">\
             <a href=\"{anim}\" title=\"a\"><img src=\"{anim}\"></a></div>"
        )
    );
    for url in [&bomb, &fake] {
        let path = url.strip_prefix("/user_uploads/").unwrap();
        download(
            &o.srv,
            Some(&o.alice),
            &format!("/user_uploads/thumbnail/{path}/840x560.webp"),
            None,
        )
        .await
        .assert_error(404, "BAD_REQUEST");
    }
    // The files themselves are still there for those who may download them.
    assert_eq!(
        download(&o.srv, Some(&o.alice), &bomb, None).await.status,
        200
    );
    assert!(walk(&o.srv.dir.path().join("data/thumbnails")).is_empty());
}

/// A PNG of `w` x `h` black 16-bit RGBA pixels (8 bytes each when decoded), compressed by
/// streaming its rows: a few hundred KB however large it decodes.
fn png_rgba16(w: u32, h: u32) -> Vec<u8> {
    use std::io::Write;
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[16, 6, 0, 0, 0]);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Each row: filter type 0, then the pixels.
    let row = vec![0u8; 1 + w as usize * 8];
    for _ in 0..h {
        z.write_all(&row).unwrap();
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &z.finish().unwrap());
    chunk(&mut out, b"IEND", &[]);
    out
}

/// Issue 24, item 5: a small 16-bit PNG whose decoded pixels (8 bytes each) exceed the
/// decoder memory cap is refused before it is decoded: no preview is offered for it and its
/// thumbnail is refused like any undecodable image's, while the file itself stays
/// downloadable. The same picture at a size within the cap is thumbnailed.
#[tokio::test]
async fn sixteen_bit_pngs_beyond_the_memory_cap_are_not_thumbnailed() {
    let o = org().await;
    o.channel(&o.alice, "pics", &[&o.alice], &[]).await;
    // 6000 x 6000 pixels (within the side and pixel limits) decode to 288 MB.
    let data = png_rgba16(6000, 6000);
    assert!(data.len() < 1024 * 1024, "{}", data.len());
    let big = upload_ok(&o.srv, &o.alice, "deep.png", &data).await;
    let fine = upload_ok(&o.srv, &o.alice, "fine.png", &png_rgba16(100, 60)).await;
    let id = o
        .send_channel(&o.alice, "pics", "t", &format!("[d]({big})\n\n[f]({fine})"))
        .await;
    let fine_path = fine.strip_prefix("/user_uploads/").unwrap();
    assert_eq!(
        rendered(&o, &o.alice, id).await,
        format!(
            "<p><a href=\"{big}\">d</a></p>\n<p><a href=\"{fine}\">f</a></p>\n\
             <div class=\"message_inline_image\"><a href=\"{fine}\" title=\"f\">\
             <img data-original-content-type=\"image/png\" \
             data-original-dimensions=\"100x60\" \
             src=\"/user_uploads/thumbnail/{fine_path}/840x560.webp\"></a></div>"
        )
    );
    let path = big.strip_prefix("/user_uploads/").unwrap();
    let r = download(
        &o.srv,
        Some(&o.alice),
        &format!("/user_uploads/thumbnail/{path}/840x560.webp"),
        None,
    )
    .await;
    assert_eq!(r.assert_error(404, "BAD_REQUEST")["msg"], "File not found.");
    assert!(walk(&o.srv.dir.path().join("data/thumbnails")).is_empty());
    let r = download(&o.srv, Some(&o.alice), &big, None).await;
    assert_eq!((r.status, r.raw.len()), (200, data.len()));
    let r = download(
        &o.srv,
        Some(&o.alice),
        &format!("/user_uploads/thumbnail/{fine_path}/840x560.webp"),
        None,
    )
    .await;
    assert_eq!(r.status, 200);
    let img = image::load_from_memory(&r.raw).unwrap();
    assert_eq!((img.width(), img.height()), (100, 60));
}

#[tokio::test]
async fn ranges_and_risky_types() {
    let o = org().await;
    let url = upload_ok(&o.srv, &o.alice, "data.bin", b"0123456789").await;
    let r = download(&o.srv, Some(&o.alice), &url, Some("bytes=2-5")).await;
    assert_eq!(r.status, 206);
    assert_eq!(&r.raw[..], b"2345");
    assert_eq!(header(&r, "content-range"), "bytes 2-5/10");
    assert_eq!(header(&r, "accept-ranges"), "bytes");
    let r = download(&o.srv, Some(&o.alice), &url, Some("bytes=-3")).await;
    assert_eq!(&r.raw[..], b"789");
    // HEAD answers the headers alone.
    let head = raw(Method::HEAD, &url)
        .header("authorization", basic(&o.alice.email, &o.alice.api_key))
        .body(body(""))
        .unwrap();
    let r = o.srv.send(head).await;
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "content-length"), "10");
    assert!(r.raw.is_empty());
    // Wrong credentials are refused before anything is looked up.
    let bad = TestUser {
        api_key: "wrong".into(),
        ..o.alice.clone()
    };
    download(&o.srv, Some(&bad), &url, None)
        .await
        .assert_error(401, "UNAUTHORIZED");
    let r = download(&o.srv, Some(&o.alice), &url, Some("bytes=10-")).await;
    assert_eq!(r.status, 416);
    assert_eq!(header(&r, "content-range"), "bytes */10");
    let r = download(&o.srv, Some(&o.alice), &url, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "content-type"), "application/octet-stream");
    assert!(header(&r, "content-disposition").starts_with("attachment;"));
    // HTML is never shown in place.
    let url = upload_ok(&o.srv, &o.alice, "page.html", b"<script>alert(1)</script>").await;
    let r = download(&o.srv, Some(&o.alice), &url, None).await;
    assert!(header(&r, "content-disposition").starts_with("attachment;"));
}

#[tokio::test]
async fn temporary_urls_work_without_credentials_for_a_while() {
    let o = org().await;
    let url = upload_ok(&o.srv, &o.alice, "report.pdf", b"%PDF-1.4 tiny").await;
    let api = format!("/api/v1{url}");
    let r = o.srv.get(&api, &o.alice, &[]).await;
    let temp = r.assert_success("GET /user_uploads/{realm_id_str}/{filename}")["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(temp.starts_with("/user_uploads/temporary/"), "{temp}");
    let r = download(&o.srv, None, &temp, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(&r.raw[..], b"%PDF-1.4 tiny");
    assert_eq!(header(&r, "content-type"), "application/pdf");
    // Someone who may not see the file gets no URL for it.
    o.srv
        .get(&api, &o.bob, &[])
        .await
        .assert_error(404, "BAD_REQUEST");
    // A tampered token serves nothing.
    let tampered = format!("{}0/report.pdf", temp.rsplit_once('/').unwrap().0);
    download(&o.srv, None, &tampered, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    // It expires after a minute.
    let token = temp.split('/').nth(3).unwrap();
    let now = outpost::time::now_secs();
    assert!(
        outpost::domain::uploads::find_temporary(&o.srv.state, token, now + 30)
            .await
            .is_ok()
    );
    assert!(
        outpost::domain::uploads::find_temporary(&o.srv.state, token, now + 61)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn deleting_attachments_and_their_events() {
    let o = org().await;
    let (q, _) = o
        .register(&o.alice, &[("event_types", r#"["attachment"]"#)])
        .await;
    let url = upload_ok(&o.srv, &o.alice, "a.txt", b"abc").await;
    let id = attachments(&o, &o.alice).await["attachments"][0]["id"]
        .as_i64()
        .unwrap();
    o.channel(&o.alice, "c", &[&o.alice], &[]).await;
    let msg = o
        .send_channel(&o.alice, "c", "t", &format!("see {url}"))
        .await;
    let evs = crate::support::wait_events(&o, &o.alice, &q, 2).await;
    assert_eq!(evs[0]["type"], "attachment");
    assert_eq!(evs[0]["op"], "add");
    assert_eq!(evs[0]["attachment"]["id"], id);
    assert_eq!(evs[0]["upload_space_used"], 3);
    assert_eq!(evs[1]["op"], "update");
    assert_eq!(evs[1]["attachment"]["messages"][0]["id"], msg);
    // Someone else's attachment, or none at all, is invalid; nothing changes.
    let path = format!("/api/v1/attachments/{id}");
    o.srv
        .delete(&path, &o.bob, &[])
        .await
        .assert_error(400, "BAD_REQUEST");
    o.srv
        .delete("/api/v1/attachments/99999", &o.alice, &[])
        .await
        .assert_error(400, "BAD_REQUEST");
    o.srv
        .call(Method::DELETE, &path, None, &[])
        .await
        .assert_error(401, "UNAUTHORIZED");
    assert_eq!(stored_files(&o.srv).len(), 1);
    let r = o.srv.delete(&path, &o.alice, &[]).await;
    r.assert_success("DELETE /attachments/{attachment_id}");
    assert!(
        attachments(&o, &o.alice).await["attachments"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(stored_files(&o.srv).is_empty());
    download(&o.srv, Some(&o.alice), &url, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    let evs = crate::support::wait_events(&o, &o.alice, &q, 3).await;
    assert_eq!(evs[2]["op"], "remove");
    assert_eq!(evs[2]["attachment"], json!({"id": id}));
    assert_eq!(evs[2]["upload_space_used"], 0);
}

#[tokio::test]
async fn files_go_with_their_last_message_and_unlinked_ones_after_weeks() {
    let o = org_with(|c| c.limits.unlinked_upload_weeks = 2).await;
    o.channel(&o.alice, "c", &[&o.alice, &o.bob], &[]).await;
    let shared = upload_ok(&o.srv, &o.alice, "shared.txt", b"shared").await;
    let m1 = o.send_channel(&o.alice, "c", "t", &shared).await;
    // Bob can see it, so his message links it too.
    let m2 = o.send_channel(&o.bob, "c", "t", &shared).await;
    let _unlinked = upload_ok(&o.srv, &o.alice, "lonely.txt", b"lonely").await;
    assert_eq!(stored_files(&o.srv).len(), 2);
    o.srv
        .delete(&format!("/api/v1/messages/{m1}"), &o.alice, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    assert_eq!(
        download(&o.srv, Some(&o.alice), &shared, None).await.status,
        200
    );
    o.srv
        .delete(&format!("/api/v1/messages/{m2}"), &o.owner, &[])
        .await
        .assert_success("DELETE /messages/{message_id}");
    download(&o.srv, Some(&o.alice), &shared, None)
        .await
        .assert_error(404, "BAD_REQUEST");
    assert_eq!(stored_files(&o.srv).len(), 1);
    // The never-linked upload stays for the configured weeks, then the sweep takes it.
    let now = outpost::time::now_secs();
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now + 13 * 86_400)
        .await
        .unwrap();
    assert_eq!(swept.records, 0);
    assert_eq!(
        attachments(&o, &o.alice).await["attachments"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now + 15 * 86_400)
        .await
        .unwrap();
    assert_eq!(swept.records, 1);
    assert!(
        attachments(&o, &o.alice).await["attachments"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(stored_files(&o.srv).is_empty());
    // A file left without a record (a crash before its record was written) goes too, once it
    // is old enough not to be an upload in progress.
    let stray = uploads_dir(&o.srv).join("ab").join("strayfile");
    std::fs::create_dir_all(stray.parent().unwrap()).unwrap();
    std::fs::write(&stray, b"x").unwrap();
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now)
        .await
        .unwrap();
    assert_eq!(swept.stray_files, 0);
    assert!(stray.exists());
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now + 7200)
        .await
        .unwrap();
    assert_eq!(swept.stray_files, 1);
    assert!(!stray.exists());
    // So does a thumbnail whose upload is gone.
    let thumb = o
        .srv
        .dir
        .path()
        .join("data/thumbnails/cd/gone.840x560.webp");
    std::fs::create_dir_all(thumb.parent().unwrap()).unwrap();
    std::fs::write(&thumb, b"x").unwrap();
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now + 7200)
        .await
        .unwrap();
    assert_eq!(swept.stray_files, 1);
    assert!(!thumb.exists());
}

#[tokio::test]
async fn bad_uploads_are_refused_and_change_nothing() {
    let o = org_with(|c| c.limits.max_file_upload_size_mib = 1).await;
    let refused = |r: Reply, msg: &str| {
        assert_eq!(r.assert_error(400, "BAD_REQUEST")["msg"], msg);
    };
    refused(
        post_body(&o.srv, Some(&o.alice), multipart(&[], &[("a", "b")])).await,
        "You must specify a file to upload",
    );
    refused(
        o.srv
            .post("/api/v1/user_uploads", &o.alice, &[("a", "b")])
            .await,
        "You must specify a file to upload",
    );
    refused(
        post_body(
            &o.srv,
            Some(&o.alice),
            multipart(&[("a", "a.txt", b"1"), ("b", "b.txt", b"2")], &[]),
        )
        .await,
        "You may only upload one file at a time",
    );
    let r = post_body(&o.srv, Some(&o.alice), b"--nope\r\ngarbage".to_vec()).await;
    r.assert_error(400, "BAD_REQUEST");
    // One byte over the limit: upstream's message.
    let big = vec![b'x'; 1024 * 1024 + 1];
    refused(
        upload(&o.srv, &o.alice, "big.bin", &big).await,
        "File is larger than this server's configured maximum upload size (1 MiB).",
    );
    // A body far over the limit is cut off while it streams in.
    let huge = vec![b'x'; 2 * 1024 * 1024];
    upload(&o.srv, &o.alice, "huge.bin", &huge)
        .await
        .assert_error(413, "BAD_REQUEST");
    // Credentials come first: without them even a body far over the limit is answered 401,
    // unread.
    post_body(&o.srv, None, multipart(&[("a", "a.txt", b"1")], &[]))
        .await
        .assert_error(401, "UNAUTHORIZED");
    post_body(&o.srv, None, multipart(&[("a", "huge.bin", &huge)], &[]))
        .await
        .assert_error(401, "UNAUTHORIZED");
    assert!(
        attachments(&o, &o.alice).await["attachments"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(stored_files(&o.srv).is_empty());
    // A file name is only ever a name: no path survives.
    let r = upload(&o.srv, &o.alice, "../../../etc/passwd", b"root").await;
    let b = r.assert_success("POST /user_uploads");
    assert_eq!(b["filename"], "passwd");
    let url = b["url"].as_str().unwrap();
    assert!(url.ends_with("/passwd") && !url.contains(".."), "{url}");
    assert_eq!(stored_files(&o.srv).len(), 1);
    assert!(stored_files(&o.srv)[0].starts_with(uploads_dir(&o.srv)));
    // Download paths that try to climb out find nothing.
    for path in [
        "/user_uploads/1/../../data/outpost.sqlite3",
        "/user_uploads/1/%2e%2e/%2e%2e/outpost.sqlite3",
        "/user_uploads/temporary/../../outpost.sqlite3",
        "/user_uploads/1/ab",
    ] {
        let r = download(&o.srv, Some(&o.alice), path, None).await;
        assert_eq!(r.status, 404, "{path}: {}", r.body);
    }
}

#[tokio::test]
async fn the_organization_quota_is_enforced() {
    let o = org_with(|c| c.limits.upload_quota_mib = 1).await;
    let (_, state) = o.register(&o.alice, &[]).await;
    assert_eq!(state["realm_upload_quota_mib"], 1);
    assert_eq!(state["max_file_upload_size_mib"], 25);
    let part = vec![b'x'; 600 * 1024];
    upload_ok(&o.srv, &o.alice, "one.bin", &part).await;
    let r = upload(&o.srv, &o.bob, "two.bin", &part).await;
    assert_eq!(
        r.assert_error(400, "REALM_UPLOAD_QUOTA")["msg"],
        "Upload would exceed your organization's upload quota."
    );
    assert_eq!(stored_files(&o.srv).len(), 1);
}

#[tokio::test]
async fn backups_hold_the_uploaded_files() {
    let o = org().await;
    let url = upload_ok(&o.srv, &o.alice, "keep.txt", b"keep me").await;
    let cfg = write_config(o.srv.dir.path(), &o.srv.state.config.data_dir);
    let dest = o.srv.dir.path().join("backup.sqlite3");
    backup(&cfg, &dest);
    // The copy's record names a file the backup holds, with the same bytes.
    let copy = rusqlite::Connection::open(&dest).unwrap();
    let (path_id, key): (String, String) = copy
        .query_row("SELECT path_id, storage_key FROM attachments", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(format!("/user_uploads/{path_id}"), url);
    let backed_up = o.srv.dir.path().join("backup.sqlite3.uploads").join(&key);
    assert_eq!(std::fs::read(&backed_up).unwrap(), b"keep me");
    // A second backup to the same place is refused, not merged.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_outpost"))
        .args(["backup", "--config"])
        .arg(&cfg)
        .arg("--to")
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[tokio::test]
async fn edits_link_and_unlink_without_losing_the_file_at_once() {
    let o = org_with(|c| c.limits.unlinked_upload_weeks = 1).await;
    o.channel(&o.alice, "c", &[&o.alice], &[]).await;
    let url = upload_ok(&o.srv, &o.alice, "draft.txt", b"v1").await;
    let id = o.send_channel(&o.alice, "c", "t", "nothing yet").await;
    let narrow = json!([{"operator": "has", "operand": "attachment"}]);
    assert!(o.ids(&o.alice, narrow.clone()).await.is_empty());
    let path = format!("/api/v1/messages/{id}");
    let content = format!("now [draft.txt]({url})");
    o.srv
        .patch(&path, &o.alice, &[("content", content.as_str())])
        .await
        .assert_success("PATCH /messages/{message_id}");
    assert_eq!(o.ids(&o.alice, narrow.clone()).await, vec![id]);
    o.srv
        .patch(&path, &o.alice, &[("content", "gone again")])
        .await
        .assert_success("PATCH /messages/{message_id}");
    assert!(o.ids(&o.alice, narrow).await.is_empty());
    // Unlinked by an edit, the upload stays its owner's until the weeks have passed.
    let now = outpost::time::now_secs();
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now)
        .await
        .unwrap();
    assert_eq!(swept.records, 0);
    assert_eq!(
        download(&o.srv, Some(&o.alice), &url, None).await.status,
        200
    );
    let swept = outpost::domain::uploads::sweep(&o.srv.state, now + 8 * 86_400)
        .await
        .unwrap();
    assert_eq!(swept.records, 1);
    assert!(stored_files(&o.srv).is_empty());
}

#[tokio::test]
async fn downloads_with_credentials_count_against_the_user_not_the_address() {
    let o = org_with(|c| {
        c.limits.ip_requests_per_minute = 3;
        c.limits.user_requests_per_minute = 0;
    })
    .await;
    let url = upload_ok(&o.srv, &o.alice, "many.txt", b"again").await;
    for _ in 0..6 {
        let r = download(&o.srv, Some(&o.alice), &url, None).await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    // Without credentials the address's limit applies.
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(download(&o.srv, None, &url, None).await.status);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
}
