// LoopbackServerRunner starts DynamoDB Local exactly as its own main class
// (ServerRunner) does, from the same command-line options, except that its
// HTTP listener is bound to 127.0.0.1 instead of every interface.
//
// DynamoDB Local has no option for its listen address: DynamoDBProxyServer
// builds its Jetty server with `new Server(port)`, whose only connector has
// no host and so binds the wildcard address. This launcher asks ServerRunner
// for the server, sets the host of that connector before the server starts,
// and starts it. The connector is reached through the private field
// "server" of DynamoDBProxyServer (DynamoDB Local 3.3.1, pinned by
// scripts/install-dynamodb-local.sh); if a later release renames it, the
// launcher fails at start with NoSuchFieldException rather than listening
// on every interface. Package dynamolocal compiles this file with javac.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public final class LoopbackServerRunner {
  private static final String HOST = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    Connector[] connectors = jetty.getConnectors();
    if (connectors.length == 0) {
      throw new IllegalStateException("DynamoDB Local's Jetty server has no connector to bind");
    }
    for (Connector c : connectors) {
      if (!(c instanceof ServerConnector)) {
        throw new IllegalStateException("unexpected connector " + c.getClass().getName() + "; cannot bind it to " + HOST);
      }
      ((ServerConnector) c).setHost(HOST);
    }
    System.out.println("LoopbackServerRunner: listening on " + HOST + " only");
    proxy.start();
  }
}
