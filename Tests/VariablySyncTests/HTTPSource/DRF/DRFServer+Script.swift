// MARK: - The server's script

extension DRFServer {
    /// The Python script: `server.py LIFETIME [PYTHON]`, re-executed with `PYTHON` if the python3 that
    /// started it cannot import Django; a Django project configured in-process (settings, an app
    /// module in memory, `migrate --run-syncdb` into an SQLite file in the script's folder), served by
    /// `wsgiref` on an ephemeral port. Prints its port, then answers one line per command. It runs after
    /// ``DjangoProcess/serving``, which defines `RequestLog`, `serve` and `answer_commands`.
    static let script = #"""
        try:
            import django
        except ImportError:   # this python3 lacks Django: run the script with the one that has it
            if len(sys.argv) < 3:
                raise
            os.execv(sys.argv[2], [sys.argv[2], sys.argv[0], sys.argv[1]])

        import datetime, signal, types

        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
        exit_after(float(sys.argv[1]), "drf")
        protocol = sys.stdout   # the port, then one JSON answer a line; anything else Django writes goes to stderr
        sys.stdout = sys.stderr

        # Settings: an in-process Django project whose app, `domain`, is a module in memory.

        from django.apps import AppConfig, apps
        from django.conf import settings

        FOLDER = os.path.dirname(os.path.abspath(__file__))
        DATABASE = os.path.join(FOLDER, "domain.sqlite3")
        if os.path.exists(DATABASE):
            os.remove(DATABASE)

        class DomainConfig(AppConfig):
            name = "domain"
            label = "domain"
            path = FOLDER
            default_auto_field = "django.db.models.AutoField"

        domain_app = types.ModuleType("domain")   # the app's module, in memory: no models or migrations modules
        domain_app.DomainConfig = DomainConfig
        sys.modules["domain"] = domain_app

        settings.configure(
            DEBUG=False,
            SECRET_KEY="drf-test-server",
            ALLOWED_HOSTS=["127.0.0.1", "localhost"],
            APPEND_SLASH=True,
            USE_TZ=True,
            TIME_ZONE="UTC",   # Django's default is America/Chicago, and DRF writes times in the current zone
            ROOT_URLCONF=__name__,
            INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "rest_framework",
                            "rest_framework.authtoken", "domain.DomainConfig"],
            MIDDLEWARE=["__main__.RequestLog", "django.middleware.common.CommonMiddleware"],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": DATABASE,
                                   # `transaction.atomic()` takes SQLite's write lock at once: see IfMatchMixin.
                                   "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"}}},
            MIGRATION_MODULES={"domain": None},   # `migrate --run-syncdb` creates its tables
            DEFAULT_AUTO_FIELD="django.db.models.AutoField",
            REST_FRAMEWORK={
                "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
                "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
                "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
                "DEFAULT_FILTER_BACKENDS": ["rest_framework.filters.OrderingFilter"],
                "PAGE_SIZE": 100,   # LimitOffsetPagination's limit when none is given
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
        from django.utils import timezone
        from django.utils.dateparse import parse_datetime
        from rest_framework import pagination, serializers, status, viewsets
        from rest_framework.exceptions import ValidationError
        from rest_framework.response import Response
        from rest_framework.routers import DefaultRouter

        # The `If-Match` recipe of docs/http.md, stock DRF otherwise.

        class IfMatchMixin:
            """Optimistic concurrency: a row's ETag is its `updated_at`; a PUT, PATCH or DELETE whose `If-Match`
            names another version is refused with 412 and the current row. Without `If-Match`, the last write wins."""

            def stale(self, request):
                """The 412 answer if `If-Match` names another version than the current one, else None."""
                current = self.get_serializer(self.get_object()).data
                if_match = request.headers.get("If-Match")
                if if_match is not None and if_match != '"%s"' % current["updated_at"]:
                    return Response(current, status=status.HTTP_412_PRECONDITION_FAILED)
                return None

            def update(self, request, *args, **kwargs):   # PUT and PATCH
                with transaction.atomic():   # check and write as one (PostgreSQL: also select_for_update())
                    refusal = self.stale(request)
                    return refusal if refusal is not None else super().update(request, *args, **kwargs)

            def destroy(self, request, *args, **kwargs):
                with transaction.atomic():
                    refusal = self.stale(request)
                    return refusal if refusal is not None else super().destroy(request, *args, **kwargs)

            def finalize_response(self, request, response, *args, **kwargs):
                data = getattr(response, "data", None)
                if isinstance(data, dict) and "updated_at" in data:   # one row: say its version
                    response["ETag"] = '"%s"' % data["updated_at"]
                return super().finalize_response(request, response, *args, **kwargs)

        # The example domain's three related models, as its JSON names them: users, posts that reference
        # them (deleted with them), comments on posts.

        class User(models.Model):
            user_name = models.CharField(max_length=200)
            email_address = models.EmailField(max_length=254)
            age = models.IntegerField(default=0)      # with score, the user's `profile` object
            score = models.FloatField(default=0)
            is_active = models.BooleanField(default=True)
            tags = models.JSONField(default=list, blank=True)
            nick_name = models.CharField(max_length=200, null=True, blank=True)
            # The user's favourite post: a cycle (a post has an author), emptied when the post goes.
            favorite_post = models.ForeignKey("Post", null=True, blank=True, on_delete=models.SET_NULL,
                                              related_name="favorited_by")
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "domain"
                # No two live users share a name: a deleted one's name is free again.
                constraints = [
                    models.UniqueConstraint(fields=["user_name"], condition=models.Q(deleted=False),
                                            name="one_live_user_per_name")
                ]

        apps.get_app_config("domain").models_module = sys.modules[__name__]   # so that `migrate` sees the app's models

        class Post(models.Model):
            author = models.ForeignKey(User, on_delete=models.CASCADE, related_name="posts")
            title = models.CharField(max_length=200)
            body = models.TextField(blank=True, default="")
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "domain"

        class ProfileSerializer(serializers.Serializer):
            """A user's `profile` object over the user's own fields (`source="*"`): writable, and with
            PATCH each of its members may be left out."""
            age = serializers.IntegerField()
            score = serializers.FloatField()

        class UserSerializer(serializers.ModelSerializer):
            profile = ProfileSerializer(source="*")
            favorite_post_id = serializers.PrimaryKeyRelatedField(
                source="favorite_post", queryset=Post.objects.all(), allow_null=True, required=False)

            class Meta:
                model = User
                fields = ["id", "user_name", "email_address", "profile", "is_active", "tags", "nick_name",
                          "favorite_post_id", "deleted", "updated_at"]
                read_only_fields = ["id", "deleted", "updated_at"]

            def validate_user_name(self, value):
                if value == "forbidden":
                    raise serializers.ValidationError("This name is not allowed.")
                return value

        class PostSerializer(serializers.ModelSerializer):
            author_id = serializers.PrimaryKeyRelatedField(source="author", queryset=User.objects.filter(deleted=False))

            class Meta:
                model = Post
                fields = ["id", "author_id", "title", "body", "deleted", "updated_at"]
                read_only_fields = ["id", "deleted", "updated_at"]

        class Comment(models.Model):
            """Comments on posts, each maybe by a user and maybe a reply to another comment (a self-reference)."""
            post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="comments")
            author = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="comments")
            reply_to = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replies")
            body = models.CharField(max_length=200)
            # The client's reference of a comment it created: unique, so a create sent twice is refused,
            # and filterable, so a client that lost an answer can look its create up.
            client_id = models.UUIDField(unique=True, null=True, blank=True)
            deleted = models.BooleanField(default=False)
            updated_at = models.DateTimeField(auto_now=True)

            class Meta:
                app_label = "domain"

        class CommentSerializer(serializers.ModelSerializer):
            post_id = serializers.PrimaryKeyRelatedField(source="post", queryset=Post.objects.all())
            author_id = serializers.PrimaryKeyRelatedField(
                source="author", queryset=User.objects.all(), allow_null=True, required=False)
            reply_to = serializers.PrimaryKeyRelatedField(queryset=Comment.objects.all(), allow_null=True, required=False)

            class Meta:
                model = Comment
                fields = ["id", "post_id", "author_id", "reply_to", "body", "client_id", "deleted", "updated_at"]
                read_only_fields = ["id", "deleted", "updated_at"]

        def changed_since(view, rows):
            """The list's rows by (updated_at, id); `?updated_since=` the changes since then, tombstones included."""
            rows = rows.order_by("updated_at", "id")
            since = view.request.query_params.get("updated_since")
            if view.action == "list" and since:
                try:
                    moment = parse_datetime(since)
                except ValueError:
                    moment = None
                if moment is None:
                    raise ValidationError({"updated_since": ["Not an ISO 8601 date and time."]})
                if timezone.is_naive(moment):
                    moment = timezone.make_aware(moment, datetime.timezone.utc)
                return rows.filter(updated_at__gte=moment)
            return rows.filter(deleted=False)

        class UserViewSet(viewsets.ModelViewSet):
            serializer_class = UserSerializer

            def get_queryset(self):
                return changed_since(self, User.objects.all())

            def perform_destroy(self, instance):
                instance.deleted = True
                instance.save()
                for post in instance.posts.all():
                    post.deleted = True
                    post.save()

        class PostViewSet(viewsets.ModelViewSet):
            serializer_class = PostSerializer

            def get_queryset(self):
                return changed_since(self, Post.objects.all())

            def perform_destroy(self, instance):
                instance.deleted = True
                instance.save()

        class CommentViewSet(viewsets.ModelViewSet):
            serializer_class = CommentSerializer

            def get_queryset(self):
                # A look-up by client reference lists a deleted comment too (as a tombstone): the client
                # then knows its create reached the server and went.
                client_id = self.request.query_params.get("client_id")
                if self.action == "list" and client_id:
                    return Comment.objects.filter(client_id=client_id).order_by("id")
                # Many at once, as django-filter's `in` lookup reads them: comma-separated.
                client_ids = self.request.query_params.get("client_id__in")
                if self.action == "list" and client_ids:
                    return Comment.objects.filter(client_id__in=client_ids.split(",")).order_by("id")
                return changed_since(self, Comment.objects.all())

            def perform_destroy(self, instance):
                instance.deleted = True
                instance.save()

        class CursorPages(pagination.CursorPagination):
            ordering = ("updated_at", "id")
            page_size = 100
            page_size_query_param = "limit"

        class NumberedPages(pagination.PageNumberPagination):
            page_size = 100
            page_size_query_param = "page_size"

        class OrderedUsers(UserViewSet):
            """The users by `(updated_at, id)`, which `?ordering=` may change (CursorPagination needs the
            view's `ordering` with OrderingFilter)."""
            ordering = ("updated_at", "id")
            ordering_fields = ["updated_at", "id"]

        class CursorUsers(OrderedUsers):
            pagination_class = CursorPages

        class LimitUsers(OrderedUsers):
            pagination_class = pagination.LimitOffsetPagination

        class PageUsers(OrderedUsers):
            pagination_class = NumberedPages

        class CheckedUsers(IfMatchMixin, OrderedUsers):
            pagination_class = NumberedPages

        class PagedUsers(UserViewSet):
            pagination_class = NumberedPages

        class PagedPosts(PostViewSet):
            pagination_class = NumberedPages

        class PagedComments(IfMatchMixin, CommentViewSet):
            """With the `If-Match` mixin, for a client that turns concurrency on; without the header, the last
            write wins, as the stock view does."""
            pagination_class = NumberedPages

        class UnorderedComments(PagedComments):
            """A stock view without OrderingFilter: pages in id order, whatever ordering is asked for."""
            filter_backends = []

            def get_queryset(self):
                return super().get_queryset().order_by("id")

        graph = DefaultRouter()
        graph.register("users", PagedUsers, basename="user")
        graph.register("posts", PagedPosts, basename="post")
        graph.register("comments", PagedComments, basename="comment")
        graph.register("unordered-comments", UnorderedComments, basename="unordered-comment")

        def router(viewset):
            routes = DefaultRouter()
            routes.register("users", viewset, basename="user-%s" % viewset.__name__.lower())
            return include(routes.urls)

        urlpatterns = [
            path("api/cursor/", router(CursorUsers)),
            path("api/limit/", router(LimitUsers)),
            path("api/page/", router(PageUsers)),
            path("api/checked/", router(CheckedUsers)),
            path("api/graph/", include(graph.urls)),
        ]

        # Start: tables, a user and its token, the server; then the commands, until stdin closes.

        call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)
        from django.contrib.auth import models as auth_models
        from rest_framework.authtoken.models import Token
        TOKEN = Token.objects.create(user=auth_models.User.objects.create_user("tester", password="tester")).key

        serve(get_wsgi_application(), protocol)

        def state():
            with log_lock:
                requests = list(request_log)
            return {"requests": requests,
                    "users": UserSerializer(User.objects.order_by("id"), many=True).data,
                    "posts": PostSerializer(Post.objects.order_by("id"), many=True).data,
                    "comments": CommentSerializer(Comment.objects.order_by("id"), many=True).data,
                    "token": TOKEN}

        def control(command):
            global TOKEN
            operation = command["op"]
            if operation == "token":   # the token alone, without the state
                return {"requests": [], "token": TOKEN}
            # Another client's writes to users, as model fields ("user_name", "nick_name", "age", ...).
            if operation == "create":
                for fields in command["users"]:
                    User.objects.create(**fields)
            elif operation == "update":
                user = User.objects.get(id=command["id"])
                for name, value in command["fields"].items():
                    setattr(user, name, value)
                user.save()
            elif operation == "delete":   # as the API deletes: a tombstone, the user's posts with it
                user = User.objects.get(id=command["id"])
                user.deleted = True
                user.save()
                for post in user.posts.all():
                    post.deleted = True
                    post.save()
            elif operation == "graph":
                # Another client's write to a graph model: "create" (explicit ids), "update", or
                # "soft_delete", which marks that one row only and keeps its children, as many backends do.
                model = {"users": User, "posts": Post, "comments": Comment}[command["model"]]
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
