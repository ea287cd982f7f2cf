// The create_video rules that JSON Schema can express, for the ajv baseline, and the 20-image
// body both validators check. What JSON Schema cannot say is left out (orbit motions only on
// v25, word-drop text counted after NFC and sanitizing, which fields a chosen template has and
// which of them are required, trimming, `null` meaning absent with defaults filled in).

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s@]+([/?#][^\\s]*)?$';
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const url = { type: 'string', maxLength: 2048, pattern: URL_PATTERN };
const choice = (...values) => ({ enum: [...values, null] });

const PLAIN_VFX = ['day-to-twilight', 'catch-the-sunshine', 'pencil-sketch', 'static-ceiling-fan', 'sway-trees',
  'house-drop', 'construction', 'starry-night', 'shadows'];

const vfx = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: PLAIN_VFX }, config: { type: 'null' } } },
    {
      type: 'object', additionalProperties: false, required: ['type', 'config'],
      properties: {
        type: { const: 'word-drop' },
        config: {
          type: 'object', additionalProperties: false, required: ['text'],
          properties: { text: { type: 'string', minLength: 1, maxLength: 64 }, color: choice('gold', 'silver') },
        },
      },
    },
  ],
};

const slot = (ids) => ({
  type: 'object', additionalProperties: false, required: ['template'],
  properties: {
    template: { enum: ids },
    config: {
      type: 'object',
      additionalProperties: {
        oneOf: [
          { type: 'object', additionalProperties: false, required: ['value'], properties: { value: { type: 'string', maxLength: 200 } } },
          { type: 'object', additionalProperties: false, required: ['url'], properties: { url } },
        ],
      },
    },
  },
});

export function createVideoSchema(templates, clipLimit = 20) {
  const ids = (s) => templates.filter((t) => t.slot === s).map((t) => t.id);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['image_inputs'],
    properties: {
      image_inputs: {
        type: 'array', minItems: 1, maxItems: clipLimit,
        items: {
          type: 'object', additionalProperties: false, required: ['image_url'],
          properties: {
            image_url: url,
            camera_motion: choice('push-in', 'push-out', 'orbit-left', 'orbit-right', 'auto'),
            vfx: { anyOf: [{ type: 'null' }, vfx] },
          },
        },
      },
      orientation: choice('landscape', 'portrait'),
      resolution: choice('720p', '1080p'),
      audio_url: { anyOf: [{ type: 'null' }, url] },
      ai_engine: choice('v24', 'v25'),
      project: { anyOf: [{ type: 'null' }, { type: 'string', pattern: UUID_PATTERN }] },
      branding: {
        anyOf: [{ type: 'null' }, {
          type: 'object', additionalProperties: false,
          properties: { intro: slot(ids('intro')), outro: slot(ids('outro')), speed_ramp: { type: 'boolean' } },
        }],
      },
    },
  };
}

/** A valid 20-image body with motions, effects, word-drop text, audio, project and branding. */
export function body20() {
  const motions = ['push-in', 'push-out', 'orbit-left', 'orbit-right', 'auto'];
  return {
    image_inputs: Array.from({ length: 20 }, (_, i) => {
      const input = { image_url: `https://cdn.example.com/listings/4821/photo-${i + 1}.jpg?w=1920&sig=a1b2c3${i}`, camera_motion: motions[i % 5] };
      if (i % 4 === 1) input.vfx = { type: PLAIN_VFX[i % PLAIN_VFX.length] };
      if (i % 4 === 3) input.vfx = { type: 'word-drop', config: { text: i % 8 === 3 ? 'Just listed' : 'Café terrace', color: 'silver' } };
      return input;
    }),
    orientation: 'portrait',
    resolution: '1080p',
    audio_url: 'https://cdn.example.com/audio/warm-acoustic.mp3',
    ai_engine: 'v25',
    project: '67e55044-10b1-426f-9247-bb680e5fe0c8',
    branding: {
      intro: { template: 'intro-lower-third', config: { address: { value: '12 Elm Street, Springfield' }, agent_name: { value: 'Dana Reyes' }, logo: { url: 'https://cdn.example.com/brand/logo.png' } } },
      outro: { template: 'outro-contact-card', config: { agent_name: { value: 'Dana Reyes' }, phone: { value: '+1 555 0100' }, email: { value: 'dana@elmrealty.example' } } },
      speed_ramp: true,
    },
  };
}
