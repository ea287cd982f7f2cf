//! The model calls of a clip: its vfx's generated input (or, on the generative engine, the
//! clip role's clip), and the depth role's map of its photo, run on their own before its
//! render (the server's `generate` job) or by the clip step itself (`Renderer::generate`).
//! Both go through the stored answers (`crate::store::generated`), where the clip step finds them
//! again.

use std::path::{Path, PathBuf};

use super::ClipJob;
use crate::failure::JobFailure;
use crate::ffmpeg::command::StillInput;
use crate::ffmpeg::runner::Step;
use crate::ffmpeg::runner::io_error;
use crate::job::MadeDepth;
use crate::media::fetch::FetchedMedia;
use crate::plan::video_plan::clip_plan;
use crate::renderer::Renderer;
use crate::store::files::{get, make_dir};
use crate::store::generated::Made;
use stillreel_camera::depth::DepthInput;
use stillreel_camera::geometry::clip_plan::ClipPlan;
use stillreel_camera::input::ExifOrientation;
use stillreel_providers::{OutputSpec, ProviderError, Role, RoleRequest};

/// What a clip is made from.
#[derive(Debug, Clone)]
pub(super) enum ClipSource {
    /// A still (the fetched picture, or the provider's processed one).
    Still(StillInput),
    /// A clip made by the generative provider (MP4 in the work dir).
    Video(PathBuf),
}

impl Renderer {
    /// Makes clip `job.index`'s generated input for its vfx, or its model clip on the generative
    /// engine (or finds it stored), without
    /// rendering: what the server's model-call job runs before the clip job, so that the clip
    /// step finds the answer stored and a model that takes minutes holds no ffmpeg slot.
    pub async fn generate_input(&self, job: &ClipJob, work_dir: &Path) -> Result<(), JobFailure> {
        let vfx = job.effect.as_ref().and_then(|s| s.generative());
        if vfx.is_none() && !job.engine.is_generative() {
            return Ok(());
        }
        let step = Step::Clip(job.index);
        make_dir(work_dir, step)?;
        let local = work_dir.join(format!(
            "input-{:03}.{}",
            job.index,
            job.input.format.extension()
        ));
        get(&self.storage, &job.input.key, &local, step).await?;
        let plan = clip_plan(job.shape(), &job.picture());
        let media = FetchedMedia {
            path: local,
            format: job.input.format,
            bytes: 0,
            digest: job.input.digest,
            orientation: job.input.orientation,
            dimensions: None,
        };
        self.generate(job, vfx, &media, &plan, work_dir)
            .await
            .map(|_| ())
    }

    /// The depth map of a clip's photo made by the `depth` role, stored and reused like every
    /// generated input (`generated.rs`): what the server puts in [`ClipJob::depth`]
    /// ([`MadeDepth::Map`]). A failed call fails the clip on `image_inputs[i]`; an answer
    /// the role cannot use (not a grey PNG, another aspect ratio than the photo's) is not
    /// stored and is [`MadeDepth::Refused`]: the clip is drawn with the flat camera.
    pub async fn generate_depth(
        &self,
        input: &super::StoredInput,
        index: usize,
        work_dir: &Path,
    ) -> Result<MadeDepth, JobFailure> {
        let Some(client) = self.providers.get(Role::Depth) else {
            return Ok(MadeDepth::NoRole);
        };
        let step = Step::Clip(index);
        make_dir(work_dir, step)?;
        let local = work_dir.join(format!(
            "depth-photo-{index:03}.{}",
            input.format.extension()
        ));
        get(&self.storage, &input.key, &local, step).await?;
        let io = |e: std::io::Error| JobFailure::Render(io_error(step, e));
        let bytes = tokio::fs::read(&local).await.map_err(io)?;
        let (width, height) = input.upright.unwrap_or((1920, 1080));
        let request = RoleRequest {
            image: &bytes,
            format: input.format,
            size: (width, height),
            vfx: None,
            motion: stillreel_core::CameraMotion::Auto,
            output: OutputSpec {
                width,
                height,
                fps: 30,
                seconds: stillreel_core::limits::CLIP_SECONDS,
            },
        };
        let made = crate::store::generated::made_with_key(
            &self.storage,
            &self.call_claims,
            client,
            &request,
            work_dir,
            index,
        )
        .await;
        let (_, key) = match made {
            Ok(made) => made,
            Err(crate::store::generated::GenerateError::Provider(
                error @ ProviderError::Invalid(_),
            )) => return Ok(MadeDepth::Refused(error.describe("the depth model"))),
            Err(crate::store::generated::GenerateError::Provider(error)) => {
                return Err(JobFailure::Provider {
                    field: format!("image_inputs[{index}]"),
                    role: Some(Role::Depth),
                    error,
                });
            }
            Err(crate::store::generated::GenerateError::Io(e)) => return Err(io(e)),
        };
        // Depth models (Depth Anything and its kin) answer relative inverse depth.
        Ok(MadeDepth::Map(DepthInput {
            key,
            polarity: stillreel_camera::depth::DepthPolarity::BrighterIsNearer,
        }))
    }

    /// Makes clip `index`'s generated input with the role of its vfx (`None`: the clip role,
    /// for the generative engine), or reuses the one made before for the same (role, model,
    /// picture, parameters), and keeps it in the work dir.
    pub(super) async fn generate(
        &self,
        job: &ClipJob,
        vfx: Option<&stillreel_core::Vfx>,
        media: &FetchedMedia,
        plan: &ClipPlan,
        work_dir: &Path,
    ) -> Result<ClipSource, JobFailure> {
        let index = job.index;
        let field = match vfx {
            Some(_) => format!("image_inputs[{index}].vfx"),
            None => format!("image_inputs[{index}]"),
        };
        let role = match vfx {
            Some(vfx) => Role::for_vfx(vfx.kind()),
            None => Some(Role::Clip),
        };
        let fail = |error: ProviderError| JobFailure::Provider {
            field: field.clone(),
            role,
            error,
        };
        let (client, motion) = match vfx {
            Some(vfx) => (
                Role::for_vfx(vfx.kind())
                    .and_then(|role| self.providers.get(role))
                    .ok_or_else(|| fail(ProviderError::NotConfigured(vfx.kind())))?,
                job.camera_motion,
            ),
            // The model is asked for the move the clip record will name (`auto` resolved as
            // v25 resolves it), so a second video of the photo asks the same and reuses it.
            None => (
                self.providers
                    .get(Role::Clip)
                    .ok_or_else(|| fail(ProviderError::ClipNotConfigured))?,
                plan.motion.as_camera_motion(),
            ),
        };
        let io = |e: std::io::Error| JobFailure::Render(io_error(Step::Clip(index), e));
        let bytes = tokio::fs::read(&media.path).await.map_err(io)?;
        let request = RoleRequest {
            image: &bytes,
            format: media.format,
            size: job.input.upright.unwrap_or((plan.width, plan.height)),
            vfx,
            motion,
            output: OutputSpec {
                width: plan.width,
                height: plan.height,
                fps: plan.fps,
                seconds: stillreel_core::limits::CLIP_SECONDS,
            },
        };
        let made = crate::store::generated::made(
            &self.storage,
            &self.call_claims,
            client,
            &request,
            work_dir,
            index,
        )
        .await
        .map_err(|e| match e {
            crate::store::generated::GenerateError::Provider(error) => fail(error),
            crate::store::generated::GenerateError::Io(e) => io(e),
        })?;
        Ok(match made {
            Made::Still { path, format } => {
                let head = tokio::fs::read(&path).await.map_err(io)?;
                ClipSource::Still(StillInput {
                    path,
                    format,
                    orientation: ExifOrientation::read(&head),
                })
            }
            Made::Clip(path) => ClipSource::Video(path),
        })
    }
}
