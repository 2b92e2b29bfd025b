//! `outpost push register`: registers this server with Zulip's push notification service
//! (`domain::push::register_server`) once the operator agreed to its terms, and prints the
//! outcome. The command line's part only: arguments, the terms text, the printed result.

use std::path::PathBuf;

use clap::Subcommand;

use crate::domain::push::register_server::{self, TERMS_URL};

#[derive(Subcommand, Debug)]
pub enum PushCommand {
    /// Register this server with Zulip's mobile push notification service (the bouncer at
    /// [push] bouncer_url), storing its credentials in the data directory.
    Register {
        #[arg(long)]
        config: Option<PathBuf>,
        /// Where the service may reach this server's administrator.
        #[arg(long, value_name = "EMAIL")]
        contact_email: String,
        /// Agree to the terms of service of Zulip's mobile push notification service.
        #[arg(long)]
        agree_to_terms_of_service: bool,
        /// Replace the server's key with a new one (stored once the service took it).
        #[arg(long)]
        rotate_key: bool,
    },
}

fn terms() -> String {
    format!(
        "Registering sends this server's hostname and the contact email to Zulip's mobile push \
         notification service, which then relays push notifications to the official Zulip apps.\n\
         Using it means agreeing to the Terms of Service of Zulip's mobile push notification \
         service, including its limits on use: {TERMS_URL}\n"
    )
}

/// Runs a `push` subcommand.
pub fn run(command: PushCommand) -> Result<(), String> {
    let PushCommand::Register {
        config,
        contact_email,
        agree_to_terms_of_service,
        rotate_key,
    } = command;
    let cfg = super::load(config.as_ref())?;
    print!("{}", terms());
    if !agree_to_terms_of_service {
        return Err(
            "to register, agree to the terms above with --agree-to-terms-of-service".into(),
        );
    }
    let hostname = register_server::hostname(&cfg);
    let bouncer = cfg.push.bouncer_url.clone();
    let enabled = cfg.push.enabled;
    let done =
        super::runtime()?.block_on(register_server::register(&cfg, &contact_email, rotate_key))?;
    println!(
        "{} {hostname} with the push notification service at {bouncer} (zulip_org_id {}).",
        if done.created {
            "Registered"
        } else {
            "Renewed the registration of"
        },
        done.zulip_org_id
    );
    if done.rotated {
        println!("The server's key was replaced; the new key is stored.");
    }
    println!("Credentials: {}", done.credentials_file.display());
    if !enabled {
        println!("Set [push] enabled = true and restart the server to send push notifications.");
    }
    Ok(())
}
