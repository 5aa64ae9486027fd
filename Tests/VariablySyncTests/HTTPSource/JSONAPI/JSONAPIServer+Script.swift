// MARK: - The server's script

extension JSONAPIServer {
    /// The Python script: `server.py LIFETIME [PYTHON]`, re-executed with `PYTHON` if the python3 that
    /// started it cannot import Django, DJA and django-filter; a Django project configured in-process
    /// (settings, an app module in memory, `migrate --run-syncdb` into an SQLite file in the script's
    /// folder), served by `wsgiref` on an ephemeral port. Prints its port, then answers one line per
    /// command. It runs after ``DjangoProcess/serving``, which defines `RequestLog`, `serve` and
    /// `answer_commands`.
    static let script = #"""
        try:
            import django, rest_framework_json_api, django_filters
        except ImportError:   # this python3 lacks them: run the script with the one that has them
            if len(sys.argv) < 3:
                raise
            os.execv(sys.argv[2], [sys.argv[2], sys.argv[0], sys.argv[1]])

        import datetime, signal, types, uuid

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        exit_after(float(sys.argv[1]), "jsonapi")
        protocol = sys.stdout   # the port, then one JSON answer a line; anything else Django writes goes to stderr
        sys.stdout = sys.stderr

        # Settings: an in-process Django project whose app, `blog`, is a module in memory.

        from django.apps import AppConfig, apps
        from django.conf import settings

        FOLDER = os.path.dirname(os.path.abspath(__file__))
        DATABASE = os.path.join(FOLDER, "blog.sqlite3")
        if os.path.exists(DATABASE):
            os.remove(DATABASE)

        class BlogConfig(AppConfig):
            name = "blog"
            label = "blog"
            path = FOLDER
            default_auto_field = "django.db.models.AutoField"

        blog_app = types.ModuleType("blog")   # the app's module, in memory: no models or migrations modules
        blog_app.BlogConfig = BlogConfig
        sys.modules["blog"] = blog_app

        settings.configure(
            DEBUG=False,
            SECRET_KEY="jsonapi-test-server",
            ALLOWED_HOSTS=["127.0.0.1", "localhost"],
            USE_TZ=True,
            TIME_ZONE="UTC",
            ROOT_URLCONF=__name__,
            INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework",
                            "rest_framework.authtoken", "rest_framework_json_api", "django_filters",
                            "blog.BlogConfig"],
            MIDDLEWARE=["__main__.RequestLog", "django.middleware.common.CommonMiddleware"],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": DATABASE,
                                   # `transaction.atomic()` takes SQLite's write lock at once: see IfMatchMixin.
                                   "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"}}},
            MIGRATION_MODULES={"blog": None},   # `migrate --run-syncdb` creates its tables
            DEFAULT_AUTO_FIELD="django.db.models.AutoField",
            # DJA's documented settings ("Usage" in its docs), less the browsable API, plus token auth.
            REST_FRAMEWORK={
                "PAGE_SIZE": 10,
                "EXCEPTION_HANDLER": "rest_framework_json_api.exceptions.exception_handler",
                "DEFAULT_PAGINATION_CLASS": "rest_framework_json_api.pagination.JsonApiPageNumberPagination",
                "DEFAULT_PARSER_CLASSES": ("rest_framework_json_api.parsers.JSONParser",),
                "DEFAULT_RENDERER_CLASSES": ("rest_framework_json_api.renderers.JSONRenderer",),
                "DEFAULT_METADATA_CLASS": "rest_framework_json_api.metadata.JSONAPIMetadata",
                "DEFAULT_FILTER_BACKENDS": (
                    "rest_framework_json_api.filters.QueryParameterValidationFilter",
                    "rest_framework_json_api.filters.OrderingFilter",
                    "rest_framework_json_api.django_filters.DjangoFilterBackend",
                ),
                "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
                "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
            },
            LOGGING={"version": 1, "disable_existing_loggers": False,
                     "handlers": {"stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
                     "loggers": {"django": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}}},
        )
        django.setup()

        from django.core.management import call_command
        from django.core.wsgi import get_wsgi_application
        from django.db import models, transaction
        from django.urls import include, path
        from rest_framework.exceptions import APIException
        from rest_framework.routers import DefaultRouter
        from rest_framework_json_api import serializers, views
        from rest_framework_json_api.relations import ResourceRelatedField

        # The models: people, their articles, comments on articles (maybe replying to another comment).
        # Each has `deleted` (a soft delete) and `updated_at`, stamped on every save.

        class Person(models.Model):
            name = models.CharField(max_length=200)
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "blog"

            class JSONAPIMeta:
                resource_name = "people"

        apps.get_app_config("blog").models_module = sys.modules[__name__]   # so that `migrate` sees the app's models

        class Article(models.Model):
            author = models.ForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="articles")
            title = models.CharField(max_length=200)
            body = models.TextField(blank=True, default="")
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "blog"

            class JSONAPIMeta:
                resource_name = "articles"

        class Comment(models.Model):
            article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="comments")
            author = models.ForeignKey(Person, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments")
            reply_to = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replies")
            body = models.CharField(max_length=200)
            # The client's reference of a comment it created: unique, so that a create sent twice is
            # refused, and filterable, so that a client that lost an answer can look its create up.
            client_id = models.UUIDField(unique=True, null=True, blank=True)
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "blog"

            class JSONAPIMeta:
                resource_name = "comments"

        # Stock DJA serializers: attributes and ResourceRelatedField relationships.

        class PersonSerializer(serializers.ModelSerializer):
            class Meta:
                model = Person
                fields = ["name", "deleted", "updated_at"]
                read_only_fields = ["deleted", "updated_at"]

        class ArticleSerializer(serializers.ModelSerializer):
            author = ResourceRelatedField(queryset=Person.objects, allow_null=True, required=False)

            class Meta:
                model = Article
                fields = ["title", "body", "author", "deleted", "updated_at"]
                read_only_fields = ["deleted", "updated_at"]

        class CommentSerializer(serializers.ModelSerializer):
            article = ResourceRelatedField(queryset=Article.objects)
            author = ResourceRelatedField(queryset=Person.objects, allow_null=True, required=False)
            reply_to = ResourceRelatedField(queryset=Comment.objects, allow_null=True, required=False)

            class Meta:
                model = Comment
                fields = ["body", "article", "author", "reply_to", "client_id", "deleted", "updated_at"]
                read_only_fields = ["deleted", "updated_at"]

        # Stock DJA views; the one piece of custom code is the soft delete.

        class SoftDeletingViewSet(views.ModelViewSet):
            """Sorted by `sort=updated_at,id` (the default too), filtered by `filter[updated_at.gte]`.
            Custom: DELETE marks the row deleted; deleted rows are left out, but for filtered lists (a
            client's changes since, or a look-up by client reference), where they are tombstones."""
            ordering = ["updated_at", "id"]
            ordering_fields = ["updated_at", "id"]
            filterset_fields = {"updated_at": ["gte"]}

            def get_queryset(self):
                rows = self.model.objects.all()
                if self.action == "list" and any(name.startswith("filter[") for name in self.request.query_params):
                    return rows
                return rows.filter(deleted=False)

            def perform_destroy(self, instance):
                instance.deleted = True
                instance.save()

        # The `If-Match` recipe of docs/http.md, as the DRF test server has it, for the comments.

        class PreconditionFailed(APIException):
            status_code = 412
            default_detail = "The record changed since the version in If-Match."
            default_code = "precondition_failed"

        class IfMatchMixin:
            """Optimistic concurrency: a row's ETag is its `updated_at`; a PATCH or DELETE whose `If-Match`
            names another version is refused with 412 (a JSON:API error). Without `If-Match`, the last write wins."""

            def check_version(self, request):
                """Raises the 412 if `If-Match` names another version than the current one."""
                if_match = request.headers.get("If-Match")
                if if_match is None:
                    return
                current = self.get_serializer(self.get_object()).data
                if if_match != '"%s"' % current["updated_at"]:
                    raise PreconditionFailed()

            def update(self, request, *args, **kwargs):   # PUT and PATCH
                with transaction.atomic():   # check and write as one (PostgreSQL: also select_for_update())
                    self.check_version(request)
                    return super().update(request, *args, **kwargs)

            def destroy(self, request, *args, **kwargs):
                with transaction.atomic():
                    self.check_version(request)
                    return super().destroy(request, *args, **kwargs)

            def finalize_response(self, request, response, *args, **kwargs):
                data = getattr(response, "data", None)
                if isinstance(data, dict) and "updated_at" in data:   # one row: say its version
                    response["ETag"] = '"%s"' % data["updated_at"]
                return super().finalize_response(request, response, *args, **kwargs)

        class PersonViewSet(SoftDeletingViewSet):
            model = Person
            serializer_class = PersonSerializer

        class ArticleViewSet(SoftDeletingViewSet):
            model = Article
            serializer_class = ArticleSerializer

        class CommentViewSet(IfMatchMixin, SoftDeletingViewSet):
            model = Comment
            serializer_class = CommentSerializer
            filterset_fields = {"updated_at": ["gte"], "client_id": ["exact", "in"]}

        router = DefaultRouter(trailing_slash=False)
        router.register("people", PersonViewSet, basename="person")
        router.register("articles", ArticleViewSet, basename="article")
        router.register("comments", CommentViewSet, basename="comment")
        urlpatterns = [path("api/", include(router.urls))]

        # Start: tables, a user and its token, the server; then the commands, until stdin closes.

        call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)
        from django.contrib.auth import models as auth_models
        from rest_framework.authtoken.models import Token
        TOKEN = Token.objects.create(user=auth_models.User.objects.create_user("tester", password="tester")).key

        serve(get_wsgi_application(), protocol)

        MODELS = {"people": Person, "articles": Article, "comments": Comment}

        def rows(model):
            """The model's rows as Django stores them (foreign keys as `author_id`, ...), deleted ones included."""
            def plain(value):
                return str(value) if isinstance(value, (uuid.UUID, datetime.datetime)) else value
            return [{name: plain(value) for name, value in row.items()} for row in model.objects.order_by("id").values()]

        def state():
            with log_lock:
                requests = list(request_log)
            answer = {name: rows(model) for name, model in MODELS.items()}
            answer.update({"requests": requests, "token": TOKEN})
            return answer

        def control(command):
            global TOKEN
            operation = command["op"]
            if operation == "token":   # the token alone, without the state
                return {"token": TOKEN}
            if operation == "write":
                # Another client's write: "create" (fields as Django names them, foreign keys as
                # `author_id`), "update", or "soft_delete", which marks that one row and keeps its children.
                model = MODELS[command["model"]]
                if command["action"] == "create":
                    model.objects.create(**command["fields"])
                else:
                    row = model.objects.get(id=command["id"])
                    for name, value in command.get("fields", {}).items():
                        setattr(row, name, value)
                    if command["action"] == "soft_delete":
                        row.deleted = True
                    row.save()
            elif operation == "rotate_token":   # the token expires: requests with it are answered 401
                Token.objects.filter(key=TOKEN).delete()
                TOKEN = Token.objects.create(user=auth_models.User.objects.get(username="tester")).key
            elif operation == "clear_log":
                with log_lock:
                    request_log.clear()
            elif operation != "state":
                raise ValueError("unknown op %r" % operation)
            return state()

        answer_commands(control, protocol)
        """#
}
