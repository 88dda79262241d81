"""Hermes's settings panel for HyAtlas (loaded by path; no secrets).

The fields mirror settings.FIELDS: Hermes stores them as flat JSON, and the
plugin reads $HERMES_HOME/hyatlas.json.
"""

try:
    from plugins.memory.config_schema import ProviderConfigSchema, ProviderField
except ImportError:  # outside Hermes: plain stand-ins with the same fields

    def ProviderField(**kw):  # noqa: N802 - mirrors Hermes's class name
        return dict(kw)

    def ProviderConfigSchema(**kw):  # noqa: N802
        return dict(kw)


CONFIG_SCHEMA = ProviderConfigSchema(
    name="hyatlas",
    label="HyAtlas Desktop",
    storage="flat_json",
    docs_url="",
    fields=(
        ProviderField(key="user_id", label="User id", kind="text", default="",
                      description="Whose memories these are when Hermes does not say (a gateway user id wins)."),
        ProviderField(key="prefetch_timeout", label="Recall timeout (s)", kind="number", default=3.0,
                      description="How long a recall before a turn may take (0.2-7.5 s)."),
        ProviderField(key="recall_limit", label="Memories per recall", kind="number", default=8,
                      description="How many memories a recall brings (1-30)."),
        ProviderField(key="auto_start", label="Start HyAtlas if it is not running", kind="bool", default=False,
                      description="Start `hyatlas serve` in the background when a session begins."),
        ProviderField(key="binary_path", label="HyAtlas program", kind="text", default="",
                      description="The hyatlas program for auto start (empty: the one the app recorded)."),
    ),
)
